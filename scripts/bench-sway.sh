#!/usr/bin/env bash
# bench-sway.sh — runs `blocker-bench sway` against a real headless sway;
# with BENCH_PROBE=wlroots (scripts/bench-wlroots.sh), `blocker-bench wlroots`,
# the wlr-foreign-toplevel probe, against the same sway as a plain wlroots
# compositor.
#
#   [BENCH_PROBE=sway|wlroots] scripts/bench-sway.sh [BLOCKER_BENCH] [-- blocker-bench options]
#
# BLOCKER_BENCH defaults to .build/release/blocker-bench (build it with
# `swift build -c release --product blocker-bench`). sway refuses to run as
# root, so it runs as the unprivileged user `blocker-sway` (created if absent)
# with its own XDG_RUNTIME_DIR and two foot windows, app ids bench-a and
# bench-b. Everything started carries a marker in its environment; the EXIT
# trap stops exactly those processes and removes the runtime directory.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh

probe=${BENCH_PROBE:-sway}
case "$probe" in sway|wlroots) ;; *) echo "$name: BENCH_PROBE is sway or wlroots, not $probe" >&2; exit 2 ;; esac
name=bench-$probe
bench=.build/release/blocker-bench
if [ $# -gt 0 ] && [ "$1" != "--" ]; then bench=$1; shift; fi
[ "${1:-}" = "--" ] && shift
[ -x "$bench" ] || { echo "$name: $bench is not built (swift build -c release --product blocker-bench)" >&2; exit 1; }
for tool in sway foot swaymsg setpriv; do
    command -v "$tool" >/dev/null || { echo "$name: $tool is not installed" >&2; exit 1; }
done

user=blocker-sway
id -u "$user" >/dev/null 2>&1 || useradd -m -s /usr/sbin/nologin "$user"
uid=$(id -u "$user") gid=$(id -g "$user")
runtime=$(mktemp -d "/tmp/blocker-$probe-bench.XXXXXX")
marker="BLOCKER_SWAY_RUN=bench-$$-$RANDOM"
sway_pid=

cleanup() {
    if [ -n "$sway_pid" ]; then
        kill -TERM "$sway_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$sway_pid" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$sway_pid" 2>/dev/null || true
        wait "$sway_pid" 2>/dev/null || true
    fi
    fx_kill_marked "$marker"
    rm -rf "$runtime"
}
trap cleanup EXIT

chown "$uid:$gid" "$runtime"
chmod 0700 "$runtime"
echo "xwayland disable" >"$runtime/config"
chown "$uid:$gid" "$runtime/config"

env -i HOME="/home/$user" USER="$user" LOGNAME="$user" SHELL=/bin/sh PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    XDG_RUNTIME_DIR="$runtime" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
    WLR_HEADLESS_OUTPUTS=1 "$marker" \
    setpriv --reuid="$uid" --regid="$gid" --init-groups -- env -C "$runtime" sway -c "$runtime/config" >"$runtime/sway.log" 2>&1 &
sway_pid=$!

export SWAYSOCK="$runtime/sway-ipc.$uid.$sway_pid.sock"
for _ in $(seq 100); do
    swaymsg -t get_version >/dev/null 2>&1 && break
    sleep 0.05
done
swaymsg -t get_version >/dev/null || { echo "$name: sway did not start:" >&2; tail -20 "$runtime/sway.log" >&2; exit 1; }

for app in bench-a bench-b; do
    swaymsg exec "foot --app-id=$app --title=$app sleep infinity" >/dev/null
done
for _ in $(seq 200); do
    n=$(swaymsg -t get_tree | grep -cE '"app_id": "bench-(a|b)"' || true)
    [ "$n" -ge 2 ] && break
    sleep 0.05
done
[ "$n" -ge 2 ] || { echo "$name: the foot windows did not appear" >&2; exit 1; }

if [ "$probe" = sway ]; then
    "$bench" sway --apps bench-a,bench-b "$@"
    exit
fi
# The wlroots probe reads only the Wayland socket (not sway's IPC): sway is just the compositor here.
socket=$(find "$runtime" -maxdepth 1 -name 'wayland-*' -type s -printf '%f\n' | head -n 1)
[ -n "$socket" ] || { echo "$name: sway opened no Wayland socket" >&2; exit 1; }
env -u SWAYSOCK XDG_RUNTIME_DIR="$runtime" WAYLAND_DISPLAY="$socket" "$bench" wlroots --apps bench-a,bench-b "$@"
