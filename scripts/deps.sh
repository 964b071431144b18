#!/usr/bin/env bash
# Installs the Debian packages blocker needs when they are missing.
#   scripts/deps.sh build   — to build and install
#   scripts/deps.sh check   — to build and run every test (real servers included)
#   scripts/deps.sh bench   — to build and run `make bench` (the peers included: timekpr-nExT)
set -euo pipefail
build=(gettext pkg-config libsqlite3-dev libtomlplusplus-dev libre2-dev libsystemd-dev tzdata libxcb1-dev libxcb-res0-dev libxcb-screensaver0-dev libgtk-3-dev libgtk-layer-shell-dev libwayland-dev libcairo2-dev)
check=(sqlite3 systemd dbus-user-session dbus-daemon sway foot xwayland xterm picom mpv mpv-mpris sox pulseaudio pulseaudio-utils gtk-layer-shell-examples xvfb dunst python3 openbox xdotool x11-utils x11-xserver-utils imagemagick grim wtype python3-dbusmock libglib2.0-bin fonts-dejavu-core phoc wayland-utils kwin-wayland kpackagetool5 libkf5config-bin)
# GNOME Shell 43 run for real (itest-gnome.sh) and its extension's ES-module stub test (itest-gnome-esm-stub.sh).
# Man pages, completions in the real shells (itest-docs.sh), the status bar (itest-waybar.sh), the Debian package (itest-deb.sh).
check+=(man-db groff-base zsh fish waybar debhelper lintian fakeroot dpkg-dev)
# The Public Suffix List that sites are counted by (SitesTests); real Chromium and
# Firefox ESR with blocker's extension (itest-browser.sh; zip packs the .xpi).
check+=(publicsuffix chromium firefox-esr zip)
# The desktop entry (itest-log-exercise.sh).
check+=(desktop-file-utils)
# GNOME Shell 48, KWin 6 and the Debian 13 package in a Debian 13 chroot (scripts/trixie.sh).
check+=(debootstrap)
check+=(gnome-shell gjs gtk-3-examples libglib2.0-bin libglib2.0-dev-bin dconf-service dconf-gsettings-backend)
# The translations spoken for real (itest-i18n.sh): the locales generated below.
check+=(locales)
# Real Syncthing keeping the daemons' sync folders in step (lib/syncthing-env.sh: itest-syncthing-env.sh, itest-sync.sh).
check+=(syncthing)
bench=(sway foot fonts-dejavu-core xvfb openbox xterm xdotool x11-utils dbus-daemon python3 python3-dbusmock libglib2.0-bin util-linux timekpr-next)
# The browser rows (bench-browser.sh): real Chromium with blocker's extension.
bench+=(chromium publicsuffix dbus-bin)
want=("${build[@]}")
case "${1:-build}" in
    build) ;;
    check) want+=("${check[@]}") ;;
    bench) want+=("${bench[@]}") ;;
    *) echo "usage: scripts/deps.sh [build|check|bench]" >&2; exit 2 ;;
esac
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The languages blocker speaks, and en_US's 12-hour clock (itest-i18n.sh): localedef
# makes one without touching /etc/locale.gen.
if [ "${1:-build}" = check ]; then
    for locale in fr_FR nl_NL it_IT pt_PT en_US; do
        locale -a 2>/dev/null | grep -qix "$locale.utf8" && continue
        echo "deps: generating the locale $locale.UTF-8" >&2
        $sudo localedef -i "$locale" -f UTF-8 "$locale.UTF-8"
    done
fi
