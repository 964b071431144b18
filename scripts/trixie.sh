#!/usr/bin/env bash
# trixie.sh ensure|mount|umount|root — the Debian 13 (trixie) chroot in which
# `make check` runs GNOME Shell 48 and KWin 6 for real and builds the Debian 13
# package (itest-gnome48.sh, itest-kde6.sh, itest-deb13.sh).
#
# ensure: builds it with debootstrap from the host's own Debian mirror when it
#   is missing, and installs the packages below when the list changed since
#   (a stamp in the chroot says which list it has). It is kept under
#   /var/cache/blocker-tests (TRIXIE_ROOT), so a second run costs nothing;
#   a failed build is a failure (exit 1), never a skip.
# mount / umount: /proc, /sys, /dev, /dev/pts, a tmpfs /dev/shm and /run,
#   counted so that nested users share them (the last umount unmounts).
# root: prints the chroot's path.
#
# The toolchain is not in Debian: itest-deb13.sh binds /opt/swift in.
# Never started inside: systemd as PID 1 (policy-rc.d refuses every service).
set -euo pipefail
R=${TRIXIE_ROOT:-/var/cache/blocker-tests/trixie}
cache=$(dirname "$R")

# GNOME Shell 48 and its session parts; KWin 6 and its tools; the clients the
# tests open; the driver's tools; the Debian 13 package's Build-Depends.
packages=(
    gnome-shell gjs dbus dbus-daemon dbus-user-session xwayland libglib2.0-bin dconf-service dconf-gsettings-backend
    python3-dbusmock
    kwin-wayland kwin-common kpackagetool6 libkf6config-bin
    gtk-3-examples foot xterm python3-gi gir1.2-gtk-3.0 fonts-dejavu-core
    build-essential debhelper dpkg-dev fakeroot lintian pkg-config libsqlite3-dev libtomlplusplus-dev libre2-dev
    libsystemd-dev tzdata libxcb1-dev libxcb-res0-dev libxcb-screensaver0-dev libgtk-3-dev libgtk-layer-shell-dev
    libwayland-dev libcairo2-dev libcurl4 libxml2 libncurses6 libedit2 libz3-4 git
)
stamp=/etc/blocker-test-packages
want_stamp="1 ${packages[*]}"

say() { echo "trixie: $*" >&2; }

# The host's Debian mirror (its apt sources), unless MIRROR is set.
mirror() {
    local m=${MIRROR:-}
    [ -n "$m" ] || m=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
    [ -n "$m" ] || m=$(awk '$1 == "deb" && $3 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    [ -n "$m" ] || { say "no Debian mirror in the host's apt sources: set MIRROR"; exit 1; }
    echo "$m"
}
security_mirror() {
    sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep security | head -n 1
}

mounts=(proc sys dev dev/pts dev/shm run)
do_mount() {
    mkdir -p "$cache"
    exec 8>"$cache/mounts.lock"
    flock 8
    local users=0
    [ -e "$cache/mount-users" ] && users=$(cat "$cache/mount-users")
    mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
    mountpoint -q "$R/sys" || { mount --bind /sys "$R/sys" && mount --make-slave "$R/sys"; }
    mountpoint -q "$R/dev" || { mount --bind /dev "$R/dev" && mount --make-slave "$R/dev"; }
    mountpoint -q "$R/dev/pts" || { mount --bind /dev/pts "$R/dev/pts" && mount --make-slave "$R/dev/pts"; }
    mountpoint -q "$R/dev/shm" || mount -t tmpfs -o mode=1777 shm "$R/dev/shm"
    mountpoint -q "$R/run" || mount -t tmpfs -o mode=755 run "$R/run"
    echo $((users + 1)) >"$cache/mount-users"
    flock -u 8
}
do_umount() {
    exec 8>"$cache/mounts.lock"
    flock 8
    local users=1 m i
    [ -e "$cache/mount-users" ] && users=$(cat "$cache/mount-users")
    users=$((users - 1))
    if [ "$users" -le 0 ]; then
        for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
            m=$R/${mounts[i]}
            mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
        done
        users=0
    fi
    echo "$users" >"$cache/mount-users"
    flock -u 8
}

ensure() {
    mkdir -p "$cache"
    exec 9>"$cache/build.lock"
    flock 9
    if [ -e "$R/etc/debian_version" ] && [ "$(cat "$R$stamp" 2>/dev/null)" = "$want_stamp" ]; then
        return 0
    fi
    local started=$SECONDS m
    m=$(mirror)
    command -v debootstrap >/dev/null || {
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=1200 debootstrap >/dev/null
    }
    if [ ! -e "$R/etc/debian_version" ]; then
        say "debootstrap trixie from $m into $R"
        rm -rf "$R.partial"
        debootstrap --variant=minbase trixie "$R.partial" "$m" >"$cache/debootstrap.log" 2>&1 \
            || { tail -n 20 "$cache/debootstrap.log" >&2; say "debootstrap failed ($cache/debootstrap.log)"; exit 1; }
        mv "$R.partial" "$R"
    fi
    local sec
    sec=$(security_mirror)
    {
        echo "deb $m trixie main"
        echo "deb $m trixie-updates main"
        [ -z "$sec" ] || echo "deb $sec trixie-security main"
    } >"$R/etc/apt/sources.list"
    printf '#!/bin/sh\n# blocker tests: no service starts in this chroot\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
    chmod +x "$R/usr/sbin/policy-rc.d"
    # Nobody reads translations or manuals here: 300 MB less.
    printf 'path-exclude=/usr/share/locale/*\npath-exclude=/usr/share/man/*\npath-include=/usr/share/locale/locale.alias\n' \
        >"$R/etc/dpkg/dpkg.cfg.d/blocker-tests-nodoc"
    cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
    # Xwayland needs it writable by every user (mutter dies otherwise).
    mkdir -p "$R/tmp/.X11-unix" && chmod 1777 "$R/tmp/.X11-unix"
    do_mount
    trap do_umount EXIT
    say "apt-get install ${#packages[@]} packages"
    local apt=(chroot "$R" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get -q -o DPkg::Lock::Timeout=600)
    { "${apt[@]}" update && "${apt[@]}" -y upgrade \
        && "${apt[@]}" install -y --no-install-recommends "${packages[@]}" && "${apt[@]}" clean; } \
        >"$cache/apt.log" 2>&1 || { tail -n 30 "$cache/apt.log" >&2; say "apt-get in the chroot failed ($cache/apt.log)"; exit 1; }
    echo "$want_stamp" >"$R$stamp"
    say "ready in $((SECONDS - started)) s: $(chroot "$R" gnome-shell --version), $(chroot "$R" sh -c 'kwin_wayland --version 2>/dev/null' | head -n 1), $(du -shx "$R" | cut -f1)"
}

case "${1:-}" in
ensure) ensure ;;
mount) do_mount ;;
umount) do_umount ;;
root) echo "$R" ;;
*)
    echo "usage: scripts/trixie.sh ensure|mount|umount|root" >&2
    exit 2
    ;;
esac
