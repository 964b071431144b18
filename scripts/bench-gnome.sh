#!/usr/bin/env bash
# bench-gnome.sh [BIN_DIR] — blockerd with the gnome probe on a real headless
# GNOME Shell 43 (scripts/lib/gnome-env.sh), blocker's extension reporting:
# CPU per focus change (blockerd's CPU time from /proc/PID/task/*/schedstat over N scripted
# switches between two windows in no group, divided by N; GNOME Shell's
# own CPU over the same switches beside it, extension and driver included)
# and blockerd's CPU per second with nothing changing. Prints
# `| label | value | target |` rows. BIN_DIR defaults to
# `swift build --show-bin-path` (BLOCKER_BIN too); build release for real numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
# shellcheck source=lib/gnome-env.sh
source scripts/lib/gnome-env.sh
[ -n "${1:-}" ] && export BLOCKER_BIN=$1
switches=${SWITCHES:-300}
idle_seconds=${IDLE_SECONDS:-20}
fx_begin bench-gnome
ge_init
ge_install
ge_start_shell
ge_leave_overview
ge_client bench-a foot --app-id=bench-a sleep 3600
ge_client bench-b foot --app-id=bench-b sleep 3600
fx_wait 15 eval '[ "$(ge_json Windows "len(j)")" -ge 2 ]' || fail "the bench windows did not map"
fx_config "$fx_dir/blocker.toml" /dev/null gnome 1s
ge_start_blockerd "$fx_dir/blocker.toml"

# CPU time in ms from every thread's schedstat (ns, not 10 ms ticks like /proc/PID/stat).
cpu_ms() { cat /proc/"$1"/task/*/schedstat | awk '{ ns += $1 } END { printf "%.3f\n", ns / 1e6 }'; }
front() { ge_status '(s["foreground"] or {}).get("app")'; }

# Warm up, then N switches, each waited for in the shell (blockerd is not
# asked in between: a Status call would cost more than the report).
for app in bench-a bench-b bench-a; do ge_test Activate "'$app'" >/dev/null; fx_wait 5 eval '[ "$(front)" = "$app" ]'; done
daemon_before=$(cpu_ms "$ge_blockerd_pid") shell_before=$(cpu_ms "$ge_shell_pid")
for ((i = 0; i < switches; i++)); do
    app=$([ $((i % 2)) = 0 ] && echo bench-b || echo bench-a)
    ge_test Activate "'$app'" >/dev/null
    fx_wait 5 eval '[ "$(focus)" = "$app" ]' || fail "switch $i to $app did not happen"
done
fx_wait 5 eval '[ "$(front)" = "$app" ]' || fail "the last switch (to $app) did not reach blockerd"
daemon_after=$(cpu_ms "$ge_blockerd_pid") shell_after=$(cpu_ms "$ge_shell_pid")
sleep 1
idle_before=$(cpu_ms "$ge_blockerd_pid")
sleep "$idle_seconds"
idle_after=$(cpu_ms "$ge_blockerd_pid")
awk -v n="$switches" -v d0="$daemon_before" -v d1="$daemon_after" -v s0="$shell_before" -v s1="$shell_after" \
    -v i0="$idle_before" -v i1="$idle_after" -v secs="$idle_seconds" 'BEGIN {
    printf "| gnome: blockerd CPU per focus change (%d switches, blockerd not asked between) | %.0f us | <= 1 ms |\n", n, (d1 - d0) * 1000 / n
    printf "| gnome: GNOME Shell CPU per focus change (extension, driver, compositing) | %.1f ms | (for scale) |\n", (s1 - s0) / n
    printf "| gnome: blockerd CPU with nothing changing (%d s) | %.1f us/s | <= 100 us/s |\n", secs, (i1 - i0) * 1000 / secs
}'
