#!/usr/bin/env bash
# tf-gpu-wizard: purge the packages that own the given files (a Linux NVIDIA driver inside WSL2).
#   remove_linux_driver.sh FILE...
# Exact absolute paths only: dpkg -S reads its arguments as patterns ("*" matches every file of
# every package), so anything that could be one is refused; "--" ends the options. The package
# names are kept in /var/backups (TF_GPU_WIZARD_BACKUPS) for a reinstall.
for p in "$@"; do
  case $p in
    /*) ;;
    *) echo "refused, not an absolute path: $p" >&2; exit 2 ;;
  esac
  case $p in
    *[][*?\\]*) echo "refused, a pattern and not one file: $p" >&2; exit 2 ;;
  esac
done
mapfile -t pkgs < <(dpkg-query -S -- "$@" 2>/dev/null | grep -v "^diversion by" | cut -d: -f1 \
  | sed "s/, /\n/g" | grep -E "^[a-z0-9][a-z0-9+.-]+$" | sort -u)
if [ "${#pkgs[@]}" -gt 0 ]; then
  printf "%s\n" "${pkgs[@]}" > "${TF_GPU_WIZARD_BACKUPS:-/var/backups}/tf-gpu-wizard-removed-nvidia-packages.txt"
  env DEBIAN_FRONTEND=noninteractive apt-get purge -y -- "${pkgs[@]}"
fi
for p in "$@"; do
  if [ -e "$p" ]; then
    echo "still there (not from a package, maybe from the NVIDIA .run installer: try nvidia-uninstall): $p"
  fi
done
