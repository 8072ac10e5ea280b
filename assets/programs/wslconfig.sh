#!/usr/bin/env bash
# tf-gpu-wizard: set memory= and processors= in [wsl2] of the Windows user's .wslconfig.
#   wslconfig.sh MEMORY_GB PROCESSORS
# Replaced where they are, added at the end of [wsl2], or a [wsl2] section added; every other line
# (other sections, comments, Windows line endings) is kept. Written whole after a backup, in the
# file's own encoding: UTF-8, UTF-8 with a BOM, UTF-16 with a BOM (Notepad's "Unicode"), or UTF-16
# without one (found by its NUL bytes: UTF-8 text has none), written back without one.
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
  # Blank lines at the end of [wsl2] stay after the keys added there, before the next section.
  if (inside && line ~ /^[ \t]*$/) { held = held $0 "\n"; next }
  if (line ~ /^[ \t]*\[[^]]*\][ \t]*$/) {
    if (inside) ours()
    printf "%s", held
    held = ""
    name = tolower(line)
    gsub(/[][ \t]/, "", name)
    inside = (name == "wsl2")
    if (inside) seen = 1
    print
    next
  }
  printf "%s", held
  held = ""
  key = tolower(line)
  sub(/[ \t]*=.*/, "", key)
  gsub(/^[ \t]+/, "", key)
  if (inside && line ~ /=/ && key == "memory") { print "memory=" mem eol; m = 1; next }
  if (inside && line ~ /=/ && key == "processors") { print "processors=" cpus eol; p = 1; next }
  print
}
END {
  if (inside) ours()
  printf "%s", held
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
src=$(mktemp)  # the file as UTF-8 without its BOM: what the merge reads
merged=$(mktemp)
trap 'rm -f -- "$tmp" "$src" "$merged"' EXIT
enc="" bom=""
if [ -f "$f" ]; then
  stem="$f.tf-gpu-wizard-$(date +%Y%m%d-%H%M%S)" n=1
  backup="$stem.bak"
  while [ -e "$backup" ]; do n=$((n + 1)); backup="$stem-$n.bak"; done
  cp -p -- "$f" "$backup"
  # Notepad saves UTF-8 with a BOM, or "Unicode" (UTF-16 LE with a BOM): read and write it as it is.
  case $(head -c 3 -- "$f" | od -An -tx1 | tr -d ' \n') in
    efbbbf*) bom='\xef\xbb\xbf'; tail -c +4 -- "$f" > "$src" ;;
    fffe*) enc=UTF-16LE bom='\xff\xfe'; tail -c +3 -- "$f" | iconv -f UTF-16LE -t UTF-8 > "$src" ;;
    feff*) enc=UTF-16BE bom='\xfe\xff'; tail -c +3 -- "$f" | iconv -f UTF-16BE -t UTF-8 > "$src" ;;
    # UTF-16 without a BOM (PowerShell's Out-File -Encoding unicode piped through some tools, or an
    # editor's "UTF-16 LE" without signature): an ASCII first character is X 00 (LE) or 00 X (BE).
    # UTF-8 text never holds a NUL byte; the whole file must convert, or it is taken as bytes.
    [0-9a-f][1-9a-f]00*|[1-9a-f]000*)
      if iconv -f UTF-16LE -t UTF-8 -- "$f" > "$src" 2>/dev/null; then enc=UTF-16LE; else cat -- "$f" > "$src"; fi ;;
    00[0-9a-f][1-9a-f]*|00[1-9a-f]0*)
      if iconv -f UTF-16BE -t UTF-8 -- "$f" > "$src" 2>/dev/null; then enc=UTF-16BE; else cat -- "$f" > "$src"; fi ;;
    *) cat -- "$f" > "$src" ;;
  esac
  # A last line without its line end gets the file's own (the merge adds lines after it).
  if [ -s "$src" ] && [ -n "$(tail -c 1 -- "$src")" ]; then
    if grep -q $'\r$' "$src"; then printf '\r\n' >> "$src"; else printf '\n' >> "$src"; fi
  fi
fi
awk -v mem="$1GB" -v cpus="$2" "$MERGE" "$src" > "$merged"
{
  if [ -n "$bom" ]; then printf '%b' "$bom"; fi
  if [ -n "$enc" ]; then iconv -f UTF-8 -t "$enc" -- "$merged"; else cat -- "$merged"; fi
} > "$tmp"
if [ -f "$f" ]; then chmod --reference="$f" -- "$tmp" 2>/dev/null || true; fi
mv -f -- "$tmp" "$f"
trap 'rm -f -- "$src" "$merged"' EXIT
echo "updated $f"
