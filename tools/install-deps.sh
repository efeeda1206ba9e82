#!/usr/bin/env bash
# Installs the Debian packages given as arguments that are not installed yet.
# Does nothing when all are present; uses apt-get as root, or through sudo.
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"

missing=()
for pkg in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo)
else
    echo "deps: missing packages (${missing[*]}) and neither root nor sudo to install them" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
