# shellcheck shell=bash
# trixie-env.sh — a test's way into the Debian 13 chroot (scripts/trixie.sh),
# for gnome-env.sh (GE_CHROOT) and kwin-env.sh (KW_CHROOT); sourced after
# fixtures.sh's fx_begin.
#
# tx_enter ROOT mounts the chroot's /proc, /sys, /dev and /run, binds $fx_dir
# into it at the same path (a socket, a script or a screenshot path means the
# same on both sides) and starts a process that holds a network namespace of
# the test's own: every session command joins it (`nsenter --net`), so an
# Xwayland's abstract socket cannot meet the host's X servers. tx_leave undoes
# it: tx_enter hands it to fixtures.sh's EXIT trap (fx_at_exit), which runs it
# once the test's processes are stopped.

tx_root=
tx_bound=
tx_mounted=
tx_netns_pid=
# A host program in the test's network namespace (an X11 client of the chroot's Xwayland).
tx_in_netns=()
# A command in the chroot, in that namespace.
tx_in_chroot=()
tx_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

tx_enter() {
    tx_root=$1
    fx_at_exit tx_leave
    [ -e "$tx_root/etc/blocker-test-packages" ] || fail "$tx_root is not a built chroot (scripts/trixie.sh ensure)"
    "$tx_repo/scripts/trixie.sh" mount || fail "cannot mount the chroot's /proc, /sys, /dev, /run"
    tx_mounted=1
    mkdir -p "$tx_root$fx_dir"
    mount --bind "$fx_dir" "$tx_root$fx_dir" || fail "cannot bind $fx_dir into the chroot"
    tx_bound=$tx_root$fx_dir
    unshare --net sleep infinity &
    tx_netns_pid=$!
    fx_track "$tx_netns_pid"
    local _
    for _ in $(seq 50); do
        [ "$(readlink "/proc/$tx_netns_pid/ns/net")" != "$(readlink /proc/$$/ns/net)" ] && break
        sleep 0.1
    done
    [ "$(readlink "/proc/$tx_netns_pid/ns/net")" != "$(readlink /proc/$$/ns/net)" ] || fail "unshare --net made no network namespace"
    tx_in_netns=(nsenter --net="/proc/$tx_netns_pid/ns/net" --)
    tx_in_chroot=("${tx_in_netns[@]}" chroot "$tx_root")
}

tx_leave() {
    if [ -n "$tx_bound" ]; then
        umount "$tx_bound" 2>/dev/null || umount -l "$tx_bound"
        rmdir "$tx_bound"
        tx_bound=
    fi
    [ -z "$tx_mounted" ] || "$tx_repo/scripts/trixie.sh" umount
    tx_mounted=
}
