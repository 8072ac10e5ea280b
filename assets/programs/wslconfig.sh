#!/usr/bin/env bash
# tf-gpu-wizard: set memory= and processors= in [wsl2] of the Windows user's .wslconfig.
#   wslconfig.sh MEMORY_GB PROCESSORS
# Replaced where they are, added at the end of [wsl2], or a [wsl2] section added; every other line
# (other sections, comments, Windows line endings) is kept. Written whole after a backup.
# shellcheck disable=SC2016
MERGE='function ours() {
  if (!m) print "memory=" mem eol
  if (!p) print "processors=" cpus eol
  m = p = 1
}
NR == 1 && /\r$/ { eol = "\r" }
{
  line = $0
  sub(/\r$/, "", line)
  if (line ~ /^[ \t]*\[[^]]*\][ \t]*$/) {
    if (inside) ours()
    name = tolower(line)
    gsub(/[][ \t]/, "", name)
    inside = (name == "wsl2")
    if (inside) seen = 1
    print
    next
  }
  key = tolower(line)
  sub(/[ \t]*=.*/, "", key)
  gsub(/^[ \t]+/, "", key)
  if (inside && line ~ /=/ && key == "memory") { print "memory=" mem eol; m = 1; next }
  if (inside && line ~ /=/ && key == "processors") { print "processors=" cpus eol; p = 1; next }
  print
}
END {
  if (inside) ours()
  if (!seen) {
    if (NR) print eol
    print "[wsl2]" eol
    ours()
  }
}'
set -e
win=$(cmd.exe /c "echo %USERPROFILE%" 2>/dev/null | tr -d "\r")
dir=$(wslpath -u "$win")
f="$dir/.wslconfig"
tmp=$(mktemp "$dir/.wslconfig.tf-gpu-wizard.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT
if [ -f "$f" ]; then
  cp -p -- "$f" "$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S).bak"
  awk -v mem="$1GB" -v cpus="$2" "$MERGE" "$f" > "$tmp"
else
  awk -v mem="$1GB" -v cpus="$2" "$MERGE" /dev/null > "$tmp"
fi
mv -f -- "$tmp" "$f"
trap - EXIT
echo "updated $f"
