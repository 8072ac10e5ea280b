#!/usr/bin/env bash
# tf-gpu-wizard: add or remove one marked block in a shell file (~/.bashrc, a venv's activate).
#   shellblock.sh add FILE BEGIN END [LINE...]    shellblock.sh remove FILE BEGIN END
# (the block's lines are arguments, one each, so a printed command stays on one line)
# The file is written whole through a temp file and a rename, after a backup; every line outside
# the block is kept; a start marker without its end marker is not a block and is cleaned up.
# shellcheck disable=SC2016
STRIP='NR == FNR {
  if ($0 == b) open = FNR
  else if ($0 == e && open) { stop[open] = FNR; open = 0 }
  next
}
skip { if (FNR == skip) skip = 0; next }
FNR in stop { skip = stop[FNR]; next }
$0 == b { next }
{ print }'
COMPLETE='$0 == b { open = 1; next } open && $0 == e { found = 1 } END { exit !found }'
action=$1
shift
case $action in
  add)
    f=$1 begin=$2 end=$3
    if [ -L "$f" ]; then f=$(readlink -f -- "$f"); fi
    dir=$(dirname -- "$f")
    shift 3
    if [ -f "$f" ] && awk -v b="$begin" -v e="$end" "$COMPLETE" "$f"; then exit 0; fi
    tmp=$(mktemp "$dir/.tf-gpu-wizard.XXXXXX") || exit 1
    trap 'rm -f -- "$tmp"' EXIT
    if [ -f "$f" ]; then
      cp -p -- "$f" "$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S).bak" || exit 1
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
    cp -p -- "$f" "$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S).bak" || exit 1
    tmp=$(mktemp "$dir/.tf-gpu-wizard.XXXXXX") || exit 1
    trap 'rm -f -- "$tmp"' EXIT
    awk -v b="$begin" -v e="$end" "$STRIP" "$f" "$f" > "$tmp" || exit 1
    chmod --reference="$f" -- "$tmp" 2>/dev/null
    sync -- "$tmp" 2>/dev/null || sync
    mv -f -- "$tmp" "$f" && trap - EXIT
    # A run killed with SIGKILL could not remove its temp file: an old one (ours by its name) goes now.
    find "$dir" -maxdepth 1 -type f -name ".tf-gpu-wizard.??????" -mmin +1 -delete 2>/dev/null
    exit 0
    ;;
  *) echo "usage: shellblock.sh add|remove FILE BEGIN END [LINE...]" >&2; exit 2 ;;
esac
