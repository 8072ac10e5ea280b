#!/bin/sh
# Install tf-gpu-wizard into .venv beside this script, put a launcher in ~/.local/bin,
# then start the app. POSIX sh on purpose: it runs before anything else is installed,
# on stock Ubuntu / Debian / WSL images whose python3 has no venv support and no pip.
#
#   ./install.sh [--no-start] [--yes] [-- ARGS FOR THE APP]
#
# Order: uv when it is there (it makes venvs without ensurepip and can bring its own
# Python >= 3.10); else python3 -m venv; else it explains, asks, and installs the
# distribution's python3-venv package with apt-get. Every command is shown before it runs.
set -u

MARK='# tf-gpu-wizard launcher, written by install.sh'

usage() {
	cat <<'EOF'
usage: ./install.sh [--no-start] [--yes] [-- ARGS FOR THE APP]

Installs tf-gpu-wizard into .venv here, writes the launcher ~/.local/bin/tf-gpu-wizard
and starts the app.
  --no-start   install only; do not start the app
  --yes, -y    answer yes to install.sh's own questions (installing python3-venv,
               replacing a ~/.local/bin/tf-gpu-wizard that install.sh did not write)
EOF
}

START=1
ASSUME_YES=0
while [ $# -gt 0 ]; do
	case "$1" in
	--no-start) START=0 ;;
	--yes | -y) ASSUME_YES=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		break
		;;
	*)
		printf 'install.sh: unknown option %s\n\n' "$1" >&2
		usage >&2
		exit 2
		;;
	esac
	shift
done

HERE=$(cd "$(dirname "$0")" && pwd -P) || exit 1
VENV="$HERE/.venv"
VPY="$VENV/bin/python"
APP="$VENV/bin/tf-gpu-wizard"
BIN_DIR="$HOME/.local/bin"
LAUNCHER="$BIN_DIR/tf-gpu-wizard"

say() { printf '%s\n' "$*"; }
die() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

# One shell word for any string (single quotes; ' becomes '\'').
quote() {
	case "$1" in
	'' | *[!A-Za-z0-9_./:=@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}

# Print a command as it could be typed, then run it.
run() {
	line='+'
	for arg in "$@"; do line="$line $(quote "$arg")"; done
	say "$line"
	"$@"
}

# y/N. Without a terminal nobody can answer: that is a no.
ask() {
	if [ "$ASSUME_YES" = 1 ]; then return 0; fi
	if [ ! -t 0 ]; then return 1; fi
	printf '%s [y/N] ' "$1"
	read -r answer || answer=''
	case "$answer" in y | Y | yes | YES | Yes) return 0 ;; *) return 1 ;; esac
}

py_new_enough() {
	"$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1
}

py_version() {
	"$1" -c 'import platform; print(platform.python_version())' 2>/dev/null || printf 'unknown'
}

# .venv is ready when its Python is >= 3.10 and has pip (both ways below seed pip).
venv_ready() {
	[ -x "$VPY" ] && py_new_enough "$VPY" && "$VPY" -m pip --version >/dev/null 2>&1
}

find_uv() {
	for candidate in "$(command -v uv 2>/dev/null)" "$HOME/.local/bin/uv" "$HOME/.cargo/bin/uv"; do
		if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" --version >/dev/null 2>&1; then
			printf '%s\n' "$candidate"
			return 0
		fi
	done
	return 1
}

find_python() {
	for name in python3 python3.14 python3.13 python3.12 python3.11 python3.10; do
		candidate=$(command -v "$name" 2>/dev/null) || continue
		if py_new_enough "$candidate"; then
			printf '%s\n' "$candidate"
			return 0
		fi
	done
	return 1
}

# pip's index settings (pip.conf files in pip's order, then PIP_* variables) for uv, which
# does not read pip's configuration: uv then asks the same index pip would. Values go to
# uv through its environment variables, never on a command line. UV_* set by the user win.
pip_setting() {
	key=$1
	value=''
	for f in /etc/xdg/pip/pip.conf /etc/pip.conf "$HOME/.pip/pip.conf" "$HOME/.config/pip/pip.conf" \
		"${PIP_CONFIG_FILE:-}"; do
		[ -n "$f" ] && [ -r "$f" ] || continue
		found=$(awk -v want="$key" '
			/^[ \t]*[#;]/ { next }
			/^[ \t]*\[/ { gsub(/[][ \t]/, ""); section = $0; cont = 0; next }
			cont && /^[ \t]+[^ \t]/ { sub(/^[ \t]+/, ""); val[section] = val[section] " " $0; next }
			{ cont = 0 }
			section == "global" || section == "install" {
				line = $0
				if (match(line, /^[ \t]*[A-Za-z_-]+[ \t]*[=:]/)) {
					k = substr(line, 1, RLENGTH - 1); gsub(/[ \t]/, "", k); gsub(/_/, "-", k)
					if (k == want) { v = substr(line, RLENGTH + 1); sub(/^[ \t]+/, "", v); val[section] = v; cont = 1 }
				}
			}
			END { if ("install" in val) print val["install"]; else if ("global" in val) print val["global"] }
		' "$f")
		if [ -n "$found" ]; then value=$found; fi
	done
	printf '%s' "$value"
}

uv_index_from_pip() {
	index=${PIP_INDEX_URL:-$(pip_setting index-url)}
	extra=${PIP_EXTRA_INDEX_URL:-$(pip_setting extra-index-url)}
	links=${PIP_FIND_LINKS:-$(pip_setting find-links)}
	if [ -n "$index" ] && [ -z "${UV_INDEX_URL:-}${UV_DEFAULT_INDEX:-}" ]; then
		UV_INDEX_URL=$index
		export UV_INDEX_URL
		say "uv will use pip's configured index."
	fi
	if [ -n "$extra" ] && [ -z "${UV_EXTRA_INDEX_URL:-}${UV_INDEX:-}" ]; then
		UV_EXTRA_INDEX_URL=$(printf '%s' "$extra" | tr '\n\t' '  ')
		# pip takes the best version over all indexes; uv's default stops at the first one.
		UV_INDEX_STRATEGY=${UV_INDEX_STRATEGY:-unsafe-best-match}
		export UV_EXTRA_INDEX_URL UV_INDEX_STRATEGY
		say "uv will also use pip's extra indexes."
	fi
	if [ -n "$links" ] && [ -z "${UV_FIND_LINKS:-}" ]; then
		UV_FIND_LINKS=$(printf '%s' "$links" | tr ' \n\t' ',,,' | sed 's/,,*/,/g; s/^,//; s/,$//')
		export UV_FIND_LINKS
	fi
}

# A .venv that is there but unusable (a failed `python3 -m venv` leaves one without pip).
clear_broken_venv() {
	if [ -e "$VENV" ] && ! venv_ready; then
		if [ -f "$VENV/pyvenv.cfg" ] || [ ! -e "$VENV/bin" ]; then
			say "The existing $VENV is unfinished (no usable Python >= 3.10 with pip): making it again."
			run rm -rf "$VENV" || die "could not remove $VENV"
		else
			die "$VENV exists and is not a virtual environment; move it away and run ./install.sh again."
		fi
	fi
}

explain_no_python() {
	have=$(command -v python3 2>/dev/null || true)
	if [ -n "$have" ]; then
		what="python3 here is $(py_version "$have") ($have)"
	else
		what="this machine has no python3"
	fi
	say ""
	say "tf-gpu-wizard needs Python 3.10 or newer, and $what. Two ways on:" \
		"install uv (see uv's installation guide; it brings its own Python) and run ./install.sh" \
		"again; or install a newer Python beside the system one (Ubuntu: the deadsnakes PPA," \
		"sudo add-apt-repository ppa:deadsnakes/ppa && sudo apt-get install -y python3.12-venv)," \
		"then run ./install.sh again."
	exit 1
}

# Debian and Ubuntu ship venv's pip support (ensurepip) in a separate package.
install_venv_package() {
	py=$1
	name=$(basename "$py")
	case "$name" in
	python3) pkg=python3-venv ;;
	python3.*) pkg="$name-venv" ;;
	*) pkg=python3-venv ;;
	esac
	if [ "$(id -u)" = 0 ]; then
		set -- apt-get install -y "$pkg"
		as="as root"
	else
		set -- sudo apt-get install -y "$pkg"
		as="as root through sudo (it may ask for your password)"
	fi
	shown=$(for arg in "$@"; do printf '%s ' "$(quote "$arg")"; done)
	shown=${shown% }
	say ""
	say "Your Python ($py, $(py_version "$py")) cannot make virtual environments yet: Debian and" \
		"Ubuntu ship that part of Python (venv with ensurepip and pip) as a separate package, $pkg." \
		"install.sh can install it now with the command below, $as; nothing else on the" \
		"system changes, and afterwards install.sh goes on by itself."
	say "    $shown"
	if ! command -v apt-get >/dev/null 2>&1; then
		die "this system has no apt-get: install your distribution's Python venv package, then run ./install.sh again."
	fi
	if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
		die "sudo is not installed: run the command above as root, then run ./install.sh again."
	fi
	if ! ask "Install $pkg now?"; then
		say "Nothing was installed. Run the command above yourself, then run ./install.sh again."
		exit 1
	fi
	if ! run "$@"; then
		# A fresh image may have no package lists yet.
		if [ "$(id -u)" = 0 ]; then run apt-get update || true; else run sudo apt-get update || true; fi
		run "$@" || die "installing $pkg failed (see above)."
	fi
}

make_venv_with_uv() {
	uv=$1
	uv_index_from_pip
	if ! venv_ready; then
		clear_broken_venv
		# --seed puts pip in .venv, so .venv/bin/pip works as with python3 -m venv.
		run "$uv" venv --seed --python '>=3.10' "$VENV" || die "uv could not create $VENV (see above)."
	fi
	run "$uv" pip install --python "$VPY" -e "$HERE" || die "installing tf-gpu-wizard into $VENV failed (see above)."
}

make_venv_with_python() {
	py=$(find_python) || explain_no_python
	if ! venv_ready; then
		clear_broken_venv
		if ! run "$py" -m venv "$VENV" || ! "$VPY" -m pip --version >/dev/null 2>&1; then
			rm -rf "$VENV"
			install_venv_package "$py"
			run "$py" -m venv "$VENV" || die "$py -m venv still fails (see above)."
		fi
	fi
	run "$VPY" -m pip install -e "$HERE" || die "installing tf-gpu-wizard into $VENV failed (see above)."
}

# ~/.local/bin/tf-gpu-wizard: a two-line sh script that runs .venv's entry point. Written to a
# temporary file and renamed, so it is whole or absent; someone else's file of that name
# is replaced only when the person says so, after a backup.
write_launcher() {
	mkdir -p "$BIN_DIR" || return 1
	if [ -e "$LAUNCHER" ] || [ -L "$LAUNCHER" ]; then
		if ! grep -qxF "$MARK" "$LAUNCHER" 2>/dev/null; then
			say "$LAUNCHER exists and was not written by install.sh."
			if ! ask "Replace it (a backup is kept beside it)?"; then
				say "Left it as it is."
				return 1
			fi
			run cp -p "$LAUNCHER" "$LAUNCHER.bak-$(date +%Y%m%d-%H%M%S)" || return 1
		fi
	fi
	tmp=$(mktemp "$BIN_DIR/.tf-gpu-wizard.XXXXXX") || return 1
	{
		printf '#!/bin/sh\n%s\n' "$MARK"
		printf 'exec %s "$@"\n' "$(quote "$APP")"
	} >"$tmp" && chmod 755 "$tmp" && sync "$tmp" 2>/dev/null
	mv -f "$tmp" "$LAUNCHER" || {
		rm -f "$tmp"
		return 1
	}
	say "Launcher: $LAUNCHER"
}

cd "$HERE" || exit 1
if UV=$(find_uv); then
	say "Using uv ($UV) to make $VENV."
	make_venv_with_uv "$UV"
else
	make_venv_with_python
fi
[ -x "$APP" ] || die "$APP is missing after the install."

if write_launcher; then
	START_CMD=$LAUNCHER
	case ":${PATH:-}:" in
	*":$BIN_DIR:"*) ;;
	*)
		say "$BIN_DIR is not on your PATH yet, so type the full path: $LAUNCHER"
		say "(Ubuntu adds ~/.local/bin to PATH at your next login when the folder exists; or add"
		say " export PATH=\"\$HOME/.local/bin:\$PATH\" to ~/.bashrc.)"
		;;
	esac
else
	START_CMD=$APP
fi
say ""
say "tf-gpu-wizard is installed. Start it any time with: $START_CMD"

if [ "$START" = 0 ]; then exit 0; fi
if [ ! -t 0 ] || [ ! -t 1 ]; then
	say "(No terminal here, so the app is not started.)"
	exit 0
fi
exec "$START_CMD" "$@"
