#!/usr/bin/env bash
# trixie.sh ensure|mount|umount|deb OUTDIR|root — the Debian 13 (trixie) chroot in which
# `make check` runs GNOME Shell 48 and KWin 6 for real and builds the Debian 13
# package (itest-gnome48.sh, itest-kde6.sh, itest-deb13.sh).
#
# ensure: builds it with debootstrap from the host's own Debian mirror when it
#   is missing, and installs the packages below when the list changed since
#   (a stamp in the chroot says which list it has). It is kept under
#   /var/cache/blocker-tests (TRIXIE_ROOT), so a second run costs nothing;
#   a failed build is a failure (exit 1), never a skip.
# mount / umount: /proc, /sys, /dev, /dev/pts, a tmpfs /dev/shm and /run for
#   the calling script; umount leaves them while another live caller uses them.
# deb OUTDIR: `make deb` inside the chroot, against Debian 13's libraries,
#   with the Swift toolchain (the directory of `command -v swift`, or SWIFT)
#   bound in read-only, from the tree as git has it (not-yet-committed files
#   included, .build not); copies blocker_VERSION_amd64.deb into OUTDIR.
# root: prints the chroot's path.
#
# The toolchain is not in Debian: `deb` binds the host's in.
# Never started inside: systemd as PID 1 (policy-rc.d refuses every service).
set -euo pipefail
R=${TRIXIE_ROOT:-/var/cache/blocker-tests/trixie}
cache=$(dirname "$R")

# GNOME Shell 48 and its session parts; KWin 6 and its tools; the clients the
# tests open; the driver's tools; the locales (French for itest-gnome48.sh);
# the Debian 13 package's Build-Depends.
packages=(
    gnome-shell gjs dbus dbus-daemon dbus-user-session xwayland libglib2.0-bin dconf-service dconf-gsettings-backend
    python3-dbusmock locales
    kwin-wayland kwin-common kpackagetool6 libkf6config-bin
    gtk-3-examples foot xterm xdotool python3-gi gir1.2-gtk-3.0 fonts-dejavu-core
    build-essential debhelper dpkg-dev fakeroot lintian pkg-config libsqlite3-dev libtomlplusplus-dev libre2-dev
    libsystemd-dev tzdata libxcb1-dev libxcb-res0-dev libxcb-screensaver0-dev libgtk-3-dev libgtk-layer-shell-dev
    libwayland-dev libcairo2-dev libcurl4 libxml2 libncurses6 libedit2 libz3-4 git
)
stamp=/etc/blocker-test-packages
# 2: fr_FR.UTF-8 generated and GNOME Shell's own French installed (see ensure).
want_stamp="2 ${packages[*]}"

say() { echo "trixie: $*" >&2; }

# The host's Debian mirror (its apt sources), unless MIRROR is set.
mirror() {
    local m=${MIRROR:-}
    # (`|| true`: no match in one place is no error under pipefail; the next place is tried.)
    [ -n "$m" ] || m=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)
    [ -n "$m" ] || m=$(awk '$1 == "deb" && $3 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$m" ] || { say "no Debian mirror in the host's apt sources: set MIRROR"; exit 1; }
    echo "$m"
}
security_mirror() {
    { sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep security | head -n 1; } \
        || awk '$1 == "deb" && $3 ~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true
}

mounts=(proc sys dev dev/pts dev/shm run)
# Each user of the mounts is a live process with a file in $cache/users: the
# test script that ran `trixie.sh mount` (its parent), or this script itself
# while it builds. The last one's umount unmounts; a run killed before its
# umount leaves a file whose PID is dead, which counts for nothing.
do_mount() {
    local holder=${1:-$PPID}
    mkdir -p "$cache/users"
    exec 8>"$cache/mounts.lock"
    flock 8
    mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
    mountpoint -q "$R/sys" || { mount --bind /sys "$R/sys" && mount --make-slave "$R/sys"; }
    mountpoint -q "$R/dev" || { mount --bind /dev "$R/dev" && mount --make-slave "$R/dev"; }
    mountpoint -q "$R/dev/pts" || { mount --bind /dev/pts "$R/dev/pts" && mount --make-slave "$R/dev/pts"; }
    mountpoint -q "$R/dev/shm" || mount -t tmpfs -o mode=1777 shm "$R/dev/shm"
    mountpoint -q "$R/run" || mount -t tmpfs -o mode=755 run "$R/run"
    touch "$cache/users/$holder"
    flock -u 8
}
do_umount() {
    local holder=${1:-$PPID} i m user
    exec 8>"$cache/mounts.lock"
    flock 8
    rm -f "$cache/users/$holder"
    for user in "$cache"/users/*; do
        [ -e "$user" ] || continue
        if kill -0 "${user##*/}" 2>/dev/null; then flock -u 8; return 0; fi
        rm -f "$user"
    done
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        m=$R/${mounts[i]}
        mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
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
    # Nobody reads translations or manuals here: 300 MB less. But GNOME
    # Shell's own French: without its domain's catalog GLib translates no
    # other domain in the shell (g_dgettext), blocker's extension's neither.
    printf '%s\n' 'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/man/*' \
        'path-include=/usr/share/locale/locale.alias' 'path-include=/usr/share/locale/fr/LC_MESSAGES/gnome-shell.mo' \
        >"$R/etc/dpkg/dpkg.cfg.d/blocker-tests-nodoc"
    cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
    # Xwayland needs it writable by every user (mutter dies otherwise).
    mkdir -p "$R/tmp/.X11-unix" && chmod 1777 "$R/tmp/.X11-unix"
    do_mount $$
    trap 'do_umount $$' EXIT
    say "apt-get install ${#packages[@]} packages"
    local apt=(chroot "$R" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get -q -o DPkg::Lock::Timeout=600)
    # A chroot built before the French came in gets it by reinstalling gnome-shell-common.
    local french=/usr/share/locale/fr/LC_MESSAGES/gnome-shell.mo
    { "${apt[@]}" update && "${apt[@]}" -y upgrade \
        && "${apt[@]}" install -y --no-install-recommends "${packages[@]}" \
        && { [ -e "$R$french" ] || "${apt[@]}" install -y --reinstall gnome-shell-common; } && "${apt[@]}" clean \
        && chroot "$R" localedef -i fr_FR -f UTF-8 fr_FR.UTF-8; } \
        >"$cache/apt.log" 2>&1 || { tail -n 30 "$cache/apt.log" >&2; say "apt-get in the chroot failed ($cache/apt.log)"; exit 1; }
    echo "$want_stamp" >"$R$stamp"
    do_umount $$
    trap - EXIT
    say "ready in $((SECONDS - started)) s: $(chroot "$R" gnome-shell --version), $(chroot "$R" sh -c 'kwin_wayland --version 2>/dev/null' | head -n 1), $(du -shx "$R" | cut -f1)"
}

# The Debian 13 package of the checkout this script is in, into $1.
build_deb() {
    local out=$1 repo swift_dir
    [ -n "$out" ] || { echo "usage: scripts/trixie.sh deb OUTDIR" >&2; exit 2; }
    repo=$(cd "$(dirname "$0")/.." && pwd)
    swift_dir=$(dirname "$(dirname "$(dirname "$(readlink -f "${SWIFT:-$(command -v swift)}")")")")
    [ -x "$swift_dir/usr/bin/swift" ] || { say "no Swift toolchain (put swift on PATH or set SWIFT)"; exit 1; }
    ensure
    do_mount $$
    # Global: the EXIT trap reads it after this function has returned.
    deb_work=$(mktemp -d "$R/tmp/blocker-deb.XXXXXX")
    trap 'umount "$R/opt/swift" 2>/dev/null; rm -rf "$deb_work"; do_umount $$' EXIT
    mkdir -p "$R/opt/swift"
    mount --bind "$swift_dir" "$R/opt/swift" && mount -o remount,bind,ro "$R/opt/swift"
    (cd "$repo" && git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$deb_work")
    chroot "$R" env -i PATH=/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        make --no-print-directory -C "${deb_work#"$R"}" deb DEB_OUTDIR="${deb_work#"$R"}/out" >&2 \
        || { say "make deb in the chroot failed"; exit 1; }
    mkdir -p "$out"
    cp "$deb_work"/out/blocker_*_amd64.deb "$out/"
    say "built $(cd "$deb_work/out" && ls blocker_*_amd64.deb) for Debian 13 into $out"
}

case "${1:-}" in
ensure) ensure ;;
deb) build_deb "${2:-}" ;;
mount) do_mount ;;
umount) do_umount ;;
root) echo "$R" ;;
*)
    echo "usage: scripts/trixie.sh ensure|mount|umount|deb OUTDIR|root" >&2
    exit 2
    ;;
esac
