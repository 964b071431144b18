#!/usr/bin/env bash
# Installs the Debian packages blocker needs when they are missing.
#   scripts/deps.sh build   — to build and install
#   scripts/deps.sh check   — to build and run every test (real servers included)
set -euo pipefail
build=(pkg-config libsqlite3-dev libtomlplusplus-dev libre2-dev libsystemd-dev tzdata libxcb1-dev libxcb-res0-dev libxcb-screensaver0-dev libgtk-3-dev libgtk-layer-shell-dev)
check=(sqlite3 systemd dbus-user-session dbus-daemon sway foot xwayland xterm gtk-layer-shell-examples xvfb dunst python3 openbox xdotool x11-utils x11-xserver-utils imagemagick grim wtype python3-dbusmock fonts-dejavu-core kwin-wayland kpackagetool5 libkf5config-bin gjs gtk-3-examples)
want=("${build[@]}")
[ "${1:-build}" = check ] && want+=("${check[@]}")
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
