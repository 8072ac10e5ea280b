#!/usr/bin/env bash
# tf-gpu-wizard: add, remove or check one marked block in a shell file (~/.bashrc, a venv's activate).
#   shellblock.sh add FILE BEGIN END [LINE...]    shellblock.sh remove|check FILE BEGIN END
# (the block's lines are arguments, one each, so a printed command stays on one line)
# The file is written whole through a temp file and a rename, after a backup of its own name; every
# line outside the block is kept; a start marker without its end marker is not a block and is cleaned
# up. A marker inside a heredoc (cat <<EOF ... EOF) is the user's text: it is neither ours nor touched.
# shellcheck disable=SC2016
HEREDOC='
function opens(line,    i, j, n, c, d, dash) {
  n = length(line); quote = ""
  for (i = 1; i <= n; i++) {
    c = substr(line, i, 1)
    if (quote != "") { if (c == quote) quote = ""; else if (c == "\\" && quote == "\"") i++; continue }
    if (c == "\\") { i++; continue }
    if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;&|()]/)) return
    if (c == "\047" || c == "\"") { quote = c; continue }
    if (substr(line, i, 2) == "((") { j = index(substr(line, i + 2), "))"); if (!j) return; i += j + 2; continue }
    if (substr(line, i, 2) != "<<" || substr(line, i + 2, 1) == "<") continue
    i += 2; dash = 0
    if (substr(line, i, 1) == "-") { dash = 1; i++ }
    while (substr(line, i, 1) ~ /[ \t]/) i++
    d = ""
    for (; i <= n; i++) {
      c = substr(line, i, 1)
      if (c ~ /[ \t;&|<>()]/) break
      if (c != "\047" && c != "\"" && c != "\\") d = d c
    }
    if (d != "") { nq++; word[nq] = d; tabs[nq] = dash }
    i--
  }
}
function quoted(line,    t) {
  if (next_doc <= nq) {
    t = line
    if (tabs[next_doc]) sub(/^\t+/, "", t)
    if (t == word[next_doc]) next_doc++
    return 1
  }
  opens(line)
  return 0
}
BEGIN { next_doc = 1 }
'
STRIP=$HEREDOC'
NR == FNR {
  if (quoted($0)) { body[FNR] = 1; next }
  if ($0 == b) open = FNR
  else if ($0 == e && open) { stop[open] = FNR; open = 0 }
  next
}
skip { if (FNR == skip) skip = 0; next }
FNR in stop { skip = stop[FNR]; next }
$0 == b && !(FNR in body) { next }
{ print }'
COMPLETE=$HEREDOC'
quoted($0) { next }
$0 == b { open = 1; next }
open && $0 == e { found = 1 }
END { exit !found }'
backup() {
  local stem n=1 name
  stem="$1.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S)"
  name="$stem.bak"
  while [ -e "$name" ]; do n=$((n + 1)); name="$stem-$n.bak"; done  # never over an earlier backup
  cp -p -- "$1" "$name"
}
action=$1
shift
case $action in
  check)
    [ -f "$1" ] && awk -v b="$2" -v e="$3" "$COMPLETE" "$1"
    exit
    ;;
  add)
    f=$1 begin=$2 end=$3
    if [ -L "$f" ]; then f=$(readlink -f -- "$f"); fi
    dir=$(dirname -- "$f")
    shift 3
    if [ -f "$f" ] && awk -v b="$begin" -v e="$end" "$COMPLETE" "$f"; then exit 0; fi
    tmp=$(mktemp "$dir/.tf-gpu-wizard.XXXXXX") || exit 1
    trap 'rm -f -- "$tmp"' EXIT
    if [ -f "$f" ]; then
      backup "$f" || exit 1
      awk -v b="$begin" -v e="$end" "$STRIP" "$f" "$f" > "$tmp" || exit 1
      chmod --reference="$f" -- "$tmp" 2>/dev/null
    fi
    { printf "\n%s\n" "$begin"; if [ "$#" -gt 0 ]; then printf "%s\n" "$@"; fi; printf "%s\n" "$end"; } >> "$tmp" || exit 1
    sync -- "$tmp" 2>/dev/null || sync
    mv -f -- "$tmp" "$f" && trap - EXIT
    # A run killed with SIGKILL could not remove its temp file: an old one (ours by its name) goes now.
    find "$dir" -maxdepth 1 -type f -name ".tf-gpu-wizard.??????" -mmin +1 -delete 2>/dev/null
    exit 0
    ;;
  remove)
    f=$1 begin=$2 end=$3
    if [ -L "$f" ]; then f=$(readlink -f -- "$f"); fi
    dir=$(dirname -- "$f")
    [ -f "$f" ] && grep -qxF -- "$begin" "$f" || exit 0
    tmp=$(mktemp "$dir/.tf-gpu-wizard.XXXXXX") || exit 1
    trap 'rm -f -- "$tmp"' EXIT
    awk -v b="$begin" -v e="$end" "$STRIP" "$f" "$f" > "$tmp" || exit 1
    if cmp -s -- "$f" "$tmp"; then exit 0; fi  # no block of ours (a quoted marker is not one)
    backup "$f" || exit 1
    chmod --reference="$f" -- "$tmp" 2>/dev/null
    sync -- "$tmp" 2>/dev/null || sync
    mv -f -- "$tmp" "$f" && trap - EXIT
    # A run killed with SIGKILL could not remove its temp file: an old one (ours by its name) goes now.
    find "$dir" -maxdepth 1 -type f -name ".tf-gpu-wizard.??????" -mmin +1 -delete 2>/dev/null
    exit 0
    ;;
  *) echo "usage: shellblock.sh add|remove|check FILE BEGIN END [LINE...]" >&2; exit 2 ;;
esac
