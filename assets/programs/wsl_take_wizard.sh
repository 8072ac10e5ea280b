#!/bin/sh
# Run inside WSL by the native-Windows plan: copy the wizard from its Windows folder into the
# Linux home (~/tf-gpu-wizard), where it runs at Linux speed with Linux line ends.
#   sh assets/programs/wsl_take_wizard.sh 'C:\Users\NAME\tf-gpu-wizard'
# The Windows path is turned into its WSL path by wslpath; a git checkout is cloned (its files
# as committed, LF line ends), anything else copied. A copy already there is left as it is.
set -eu
src=$(wslpath -u "$1")
dest="$HOME/tf-gpu-wizard"
if [ -f "$dest/install.sh" ]; then
	printf 'already in Ubuntu: %s\n' "$dest"
	exit 0
fi
[ -f "$src/install.sh" ] || {
	printf 'not the wizard folder: %s (%s)\n' "$1" "$src" >&2
	exit 1
}
tmp="$dest.partial"
rm -rf "$tmp"
if [ -d "$src/.git" ] && command -v git >/dev/null 2>&1; then
	git -c safe.directory="$src" clone --quiet -- "$src" "$tmp"
else
	cp -R -- "$src" "$tmp"
	rm -rf "$tmp/.venv"
fi
mv -- "$tmp" "$dest"
printf 'copied into Ubuntu: %s\n' "$dest"
