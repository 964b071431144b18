#!/usr/bin/env bash
# Daemon CPU per tick and RSS after BENCH_SECONDS (default 600) of 1 Hz ticking
# with a metered app in front. PROBE=command (default): /bin/cat of a JSON
# file, the probe's own child CPU reported separately. PROBE=x11: the real X11
# probe, run under scripts/with-xvfb.sh with an `xterm -class Discord` in front.
# Prints table rows.
#   [PROBE=x11] scripts/bench-daemon.sh BLOCKERD_BINARY
set -euo pipefail
bin=$1
seconds=${BENCH_SECONDS:-600}
source "$(dirname "$0")/lib/fixtures.sh"
fx_begin bench-daemon
dir=$fx_dir
probe=${PROBE:-command}
if [ "$probe" = x11 ]; then
    xterm -class Discord -e sleep 100000 &
    fx_track $!
    window=$(fx_x_window Discord) && fx_x_activate "$window" || fail "openbox did not activate the Discord xterm"
fi
fx_config "$dir/blocker.toml" "$dir/front.json" "$probe"
fx_front "$dir/front.json" discord
env -i HOME="$dir" TZ=UTC PATH=/usr/bin:/bin ${DISPLAY:+DISPLAY=$DISPLAY} "$bin" --config "$dir/blocker.toml" --state-dir "$dir/state" 2>"$dir/err" &
pid=$!
fx_track "$pid"
hz=$(getconf CLK_TCK)
# Own CPU from schedstat (ns, exact). Child CPU: reaped children (stat, clock
# ticks) plus the command probe's helper (blockerd --probe-launcher) and the
# probes it reaped, in clock ticks.
cpu() {
    local kids helper
    kids=$(awk '{print $16 + $17}' "/proc/$pid/stat")
    for helper in $(pgrep -P "$pid"); do
        kids=$((kids + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$helper/stat")))
    done
    echo "$(awk '{print $1}' "/proc/$pid/schedstat") $kids"
}
sleep 2
read -r self0 kids0 < <(cpu)
sleep "$seconds"
read -r self1 kids1 < <(cpu)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
ticks=$seconds
anon=$(awk '/^Anonymous/ {print $2}' "/proc/$pid/smaps_rollup")
awk -v probe="$probe" -v s=$((self1 - self0)) -v k=$((kids1 - kids0)) -v t="$ticks" -v hz="$hz" -v rss="$rss" -v anon="$anon" -v secs="$seconds" 'BEGIN {
    printf "| %-46s | %12.1f us | %-22s |\n", "daemon CPU per tick, " probe " probe (" secs " s of 1 Hz)", s / 1000 / t, "<= 300 us"
    printf "| %-46s | %12.1f us | %-22s |\n", "  its children (probe helper, probes) CPU/tick", k / hz / t * 1e6, "(reported separately)"
    printf "| %-46s | %12.1f MiB | %-22s |\n", "daemon RSS after " secs " s, " probe " probe", rss / 1024, "<= 20 MiB"
    printf "| %-46s | %12.1f MiB | %-22s |\n", "  of which anonymous (heap, stacks)", anon / 1024, ""
}'
