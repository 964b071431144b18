#!/usr/bin/env bash
# bench-daemon-wayland.sh — blockerd's own CPU under a real headless sway, with
# the sway probe (i3 IPC) and with the wlroots probe (wlr-foreign-toplevel):
# per focus change (swaymsg switches between a metered foot and another one
# N times, 50 ms apart; blockerd's CPU time from /proc/PID/task/*/schedstat
# over the run, divided by N), and per second with nothing changing (the
# metered foot not in front).
# Prints `| label | value | target |` rows.
#   [BLOCKER_BIN=DIR] [N=200] [IDLE_S=10] scripts/bench-daemon-wayland.sh
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init bench-daemon-wayland
changes=${N:-200}
idle_seconds=${IDLE_S:-10}

fx_start_bus
oe_start_sway 1
oe_open_foots blocker-meter elsewhere

# CPU time in ns of every thread of PID (stat's 10 ms ticks are too coarse here).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{sum += $1} END {print sum}'; }
focus() { swaymsg "[app_id=$1] focus" >/dev/null; }

for probe in sway wlroots; do
    oe_write_config 60 "probe = \"$probe\""
    oe_start_blockerd "$probe"
    oe_ctl earn 10 pushups >/dev/null
    focus elsewhere
    sleep 1
    before=$(cpu_ns "$oe_blockerd_pid")
    started=$(fx_now_ms)
    for ((i = 0; i < changes; i++)); do
        if ((i % 2)); then focus elsewhere; else focus blocker-meter; fi
        sleep 0.05
    done
    sleep 0.5
    after=$(cpu_ns "$oe_blockerd_pid")
    elapsed=$(($(fx_now_ms) - started))
    [ "$(oe_status 's["probe"]["name"], s["probe"]["ok"]')" = "$probe True" ] || fail "the $probe probe failed during the run"
    per_change=$(((after - before) / 1000 / changes))
    focus elsewhere
    sleep 1
    before=$(cpu_ns "$oe_blockerd_pid")
    sleep "$idle_seconds"
    after=$(cpu_ns "$oe_blockerd_pid")
    idle=$(((after - before) / 1000 / idle_seconds))
    oe_stop_blockerd
    echo "| $probe: blockerd CPU per focus change ($changes in $elapsed ms) | ${per_change} µs | |"
    echo "| $probe: blockerd CPU per second, nothing changing | ${idle} µs/s | <= the x11 probe's |"
done
