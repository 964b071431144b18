#!/usr/bin/env bash
# blockerd's CPU, wake-ups and RSS over BENCH_SECONDS (default 600) per phase:
#   counting — an app of an unmetered group in front: its use is counted, so
#              blockerd samples every poll (1 s): CPU per tick;
#   shield up — the metered app in front with no balance: nothing is charged,
#              so an event-driven probe sleeps until something happens.
# PROBE=command (default): /bin/cat of a JSON file, sampled every second (the
# probe's own child CPU reported separately). PROBE=x11: the real X11 probe,
# run under scripts/with-xvfb.sh, with xterms of class Notes and Discord.
# Prints table rows.
#   [PROBE=x11] scripts/bench-daemon.sh BLOCKERD_BINARY
set -euo pipefail
bin=$1
seconds=${BENCH_SECONDS:-600}
source "$(dirname "$0")/lib/fixtures.sh"
fx_begin bench-daemon
dir=$fx_dir
probe=${PROBE:-command}
declare -A windows
if [ "$probe" = x11 ]; then
    for class in Notes Discord; do
        xterm -class "$class" -e sleep 100000 &
        fx_track $!
        windows[$class]=$(fx_x_window "$class") || fail "no $class xterm"
    done
fi
# APP in front: for x11 the xterm of that class, else what the command probe prints.
front() {
    if [ "$probe" = x11 ]; then
        fx_x_activate "${windows[$1]}" || fail "openbox did not activate the $1 xterm"
    else
        fx_front "$dir/front.json" "${1,,}"
    fi
}
fx_config "$dir/blocker.toml" "$dir/front.json" "$probe"
printf '%s\n' '[[group]]' 'name = "tools"' 'apps = ["notes"]' 'metered = false' >>"$dir/blocker.toml"
front Notes
env -i HOME="$dir" TZ=UTC PATH=/usr/bin:/bin ${DISPLAY:+DISPLAY=$DISPLAY} "$bin" --config "$dir/blocker.toml" --state-dir "$dir/state" 2>"$dir/err" &
pid=$!
fx_track "$pid"
hz=$(getconf CLK_TCK)
# Own CPU from schedstat (ns, exact); voluntary context switches of every
# thread (each sleep in the loop is one). Child CPU: reaped children (stat,
# clock ticks) plus the command probe's helper (blockerd --probe-launcher)
# and the probes it reaped, in clock ticks.
readings() {
    local kids helper switches
    kids=$(awk '{print $16 + $17}' "/proc/$pid/stat")
    for helper in $(pgrep -P "$pid"); do
        kids=$((kids + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$helper/stat")))
    done
    switches=$(cat /proc/"$pid"/task/*/status | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n}')
    echo "$(awk '{print $1}' "/proc/$pid/schedstat") $kids $switches"
}
# measure PHASE: prints the phase's rows.
measure() {
    local self0 kids0 ctx0 self1 kids1 ctx1
    sleep 2
    read -r self0 kids0 ctx0 < <(readings)
    sleep "$seconds"
    read -r self1 kids1 ctx1 < <(readings)
    awk -v probe="$probe" -v phase="$1" -v s=$((self1 - self0)) -v k=$((kids1 - kids0)) -v c=$((ctx1 - ctx0)) \
        -v hz="$hz" -v secs="$seconds" 'BEGIN {
        if (phase == "counting") {
            printf "| %-46s | %12.1f us | %-22s |\n", "daemon CPU per tick, " probe ", counting (" secs " s at 1 Hz)", s / 1000 / secs, "<= 300 us"
        } else {
            printf "| %-46s | %12.1f us | %-22s |\n", "daemon CPU per second, " probe ", shield up", s / 1000 / secs, "x11: <= 100 us"
        }
        printf "| %-46s | %12.2f /s | %-22s |\n", "  wake-ups (voluntary switches), " phase, c / secs, phase == "counting" ? "" : "x11: <= 1.5/s"
        if (probe == "command") printf "| %-46s | %12.1f us | %-22s |\n", "  its children (probe helper, probes) CPU/s", k / hz / secs * 1e6, "(reported separately)"
    }'
}
measure counting
front Discord
measure "shield up"
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
anon=$(awk '/^Anonymous/ {print $2}' "/proc/$pid/smaps_rollup")
awk -v probe="$probe" -v rss="$rss" -v anon="$anon" 'BEGIN {
    printf "| %-46s | %12.1f MiB | %-22s |\n", "daemon RSS at the end, " probe " probe", rss / 1024, "<= 12 MiB"
    printf "| %-46s | %12.1f MiB | %-22s |\n", "  of which anonymous (heap, stacks)", anon / 1024, ""
}'
