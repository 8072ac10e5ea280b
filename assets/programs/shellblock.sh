#!/usr/bin/env bash
# tf-gpu-wizard: add, remove or check one marked block in a shell file (~/.bashrc, a venv's activate).
#   shellblock.sh add FILE BEGIN END [LINE...]    shellblock.sh remove|check FILE BEGIN END
# (the block's lines are arguments, one each, so a printed command stays on one line)
# The one implementation: the wizard's Python (wizard/plan/shellblock.py) runs this program too.
# The file is written whole through a temp file and a rename, after a backup of its own name; every
# line outside the block is kept, byte for byte: add then remove gives back the same file (the line
# break add put before the block goes with it; a CRLF file gets a CRLF block). A start marker without
# its end marker is not a block and is cleaned up. A marker inside a heredoc (cat <<EOF ... EOF) is
# the user's text: it is neither ours nor touched. A file that ends inside a heredoc (its EOF line
# is missing) gets no block: appended there, it would be the heredoc's text, not shell code.
# A read-only or immutable file, or one that is not a regular file, is left alone with one line on
# stderr and a non-zero exit.
# shellcheck disable=SC2016
PROGRAM='
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
    if (d != "") { nq++; word[nq] = d; tabs[nq] = dash; opened[nq] = NR }
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
function bare(line) { sub(/\r$/, "", line); return line }
BEGIN { next_doc = 1 }
{
  n = NR; raw[n] = $0; plain = bare($0)
  if (n == 1) crlf = ($0 ~ /\r$/)
  if (quoted(plain)) { body[n] = 1; next }
  if (plain == b) open = n
  else if (plain == e && open) { stop[open] = n; found = 1; open = 0 }
}
END {
  if (mode == "check") exit !found
  if (mode == "heredoc") { if (next_doc <= nq) { print opened[next_doc]; exit 0 } exit 1 }
  # Mark what goes: each block (markers included), a start marker alone, and the line break the
  # add put before a block: the blank line before it, or, for a block that ends the file after a
  # line with no break of its own, that line'"'"'s break.
  for (i = 1; i <= n; i++) {
    if (i in body) continue
    if (i in stop) {
      for (j = i; j <= stop[i]; j++) gone[j] = 1
      if (i > 1 && !((i - 1) in body) && !((i - 1) in gone) && bare(raw[i - 1]) == "") gone[i - 1] = 1
      else if (stop[i] == n && i > 1) unbreak = i - 1
      i = stop[i]
    } else if (bare(raw[i]) == b) gone[i] = 1
  }
  last = 0
  for (i = 1; i <= n; i++) if (!(i in gone)) last = i
  for (i = 1; i <= n; i++) {
    if (i in gone) continue
    if (i == last && (nofinal || unbreak == i)) {
      line = raw[i]; if (unbreak == i) sub(/\r$/, "", line)
      printf "%s", line
    } else print raw[i]
  }
  if (mode == "add") {
    nl = crlf ? "\r\n" : "\n"
    if (last) printf "%s", nl  # the blank line before the block, or the break the last line lacked
    printf "%s%s", b, nl
    count = split(ENVIRON["TF_GPU_WIZARD_BLOCK"], lines, "\n")
    for (k = 1; k <= count; k++) if (lines[k] != "" || k < count) printf "%s%s", lines[k], nl
    printf "%s%s", e, nl
  }
}'
fail() { printf 'tf-gpu-wizard: %s\n' "$1" >&2; exit "${2:-1}"; }
backup() {
  local stem n=1 name
  stem="$1.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S)"
  name="$stem.bak"
  while [ -e "$name" ]; do n=$((n + 1)); name="$stem-$n.bak"; done  # never over an earlier backup
  cp -p -- "$1" "$name" || fail "could not back up $1 to $name; it was not changed"
}
# The file's last byte is not a line break (a file that does not end its last line).
no_final_break() { [ -s "$1" ] && [ -n "$(tail -c 1 -- "$1")" ]; }
writable() {
  [ -e "$1" ] || return 0
  [ -f "$1" ] || fail "$1 is not a regular file; it was left alone" 4
  # Its owner's write bit, not [ -w ] (which root always passes): the owner made it read-only.
  case $(stat -c %A -- "$1") in
    ??w*) ;;
    *) fail "$1 is read-only; it was not changed. Make it writable (chmod u+w $1), then run this again" 4 ;;
  esac
  if command -v lsattr >/dev/null 2>&1 && lsattr -d -- "$1" 2>/dev/null | cut -d' ' -f1 | grep -q i; then
    fail "$1 is immutable (chattr +i); it was not changed. Run sudo chattr -i $1, then run this again" 4
  fi
}
# Write the temp file over FILE, or say why not and keep FILE as it was.
replace() {
  chmod --reference="$2" -- "$1" 2>/dev/null
  sync -- "$1" 2>/dev/null || sync
  mv -f -- "$1" "$2" 2>/dev/null || fail "could not replace $2 (its folder or the file refuses changes); it was not changed" 5
  trap - EXIT
  # A run killed with SIGKILL could not remove its temp file: an old one (ours by its name) goes now.
  find "$(dirname -- "$2")" -maxdepth 1 -type f -name ".tf-gpu-wizard.??????" -mmin +1 -delete 2>/dev/null
}
run() {  # run MODE FILE BEGIN END: the program over FILE
  local nofinal=0
  if no_final_break "$2"; then nofinal=1; fi
  awk -v mode="$1" -v b="$3" -v e="$4" -v nofinal="$nofinal" "$PROGRAM" "$2"
}
action=$1
shift
case $action in
  check)
    [ -f "$1" ] && run check "$1" "$2" "$3"
    exit
    ;;
  add)
    f=$1 begin=$2 end=$3
    if [ -L "$f" ]; then f=$(readlink -f -- "$f"); fi
    dir=$(dirname -- "$f")
    shift 3
    if [ -f "$f" ] && run check "$f" "$begin" "$end"; then exit 0; fi
    writable "$f"
    if [ -f "$f" ] && line=$(run heredoc "$f" "$begin" "$end"); then
      fail "$f ends inside a heredoc opened on line $line (its closing word is missing), so a block added at the end would be part of it; it was not changed. Close the heredoc, then run this again" 3
    fi
    tmp=$(mktemp "$dir/.tf-gpu-wizard.XXXXXX") || fail "could not write a temp file in $dir; $f was not changed"
    trap 'rm -f -- "$tmp"' EXIT
    block=""
    if [ "$#" -gt 0 ]; then block=$(printf '%s\n' "$@"); fi
    if [ -f "$f" ]; then
      backup "$f"
      TF_GPU_WIZARD_BLOCK=$block run add "$f" "$begin" "$end" > "$tmp" || fail "could not write $tmp; $f was not changed"
      replace "$tmp" "$f"
    else
      TF_GPU_WIZARD_BLOCK=$block run add /dev/null "$begin" "$end" > "$tmp" || fail "could not write $tmp"
      chmod 644 -- "$tmp"
      sync -- "$tmp" 2>/dev/null || sync
      mv -f -- "$tmp" "$f" || fail "could not write $f" 5
      trap - EXIT
    fi
    exit 0
    ;;
  remove)
    f=$1 begin=$2 end=$3
    if [ -L "$f" ]; then f=$(readlink -f -- "$f"); fi
    dir=$(dirname -- "$f")
    [ -f "$f" ] && grep -qF -- "$begin" "$f" || exit 0
    tmp=$(mktemp "$dir/.tf-gpu-wizard.XXXXXX") || fail "could not write a temp file in $dir; $f was not changed"
    trap 'rm -f -- "$tmp"' EXIT
    run remove "$f" "$begin" "$end" > "$tmp" || fail "could not write $tmp; $f was not changed"
    if cmp -s -- "$f" "$tmp"; then exit 0; fi  # no block of ours (a quoted marker is not one)
    writable "$f"
    backup "$f"
    replace "$tmp" "$f"
    exit 0
    ;;
  *) echo "usage: shellblock.sh add|remove|check FILE BEGIN END [LINE...]" >&2; exit 2 ;;
esac
