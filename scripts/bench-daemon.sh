#!/usr/bin/env bash
# Daemon CPU per tick and RSS after BENCH_SECONDS (default 600) of 1 Hz ticking,
# with the command probe (/bin/cat of a JSON file: a metered app in front) —
# the probe's own child CPU reported separately. Prints table rows.
#   scripts/bench-daemon.sh BLOCKERD_BINARY
set -euo pipefail
bin=$1
seconds=${BENCH_SECONDS:-600}
dir=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
cat >"$dir/blocker.toml" <<TOML
[daemon]
probe = "command"
poll-interval = "1s"
probe-command = ["/bin/cat", "$dir/front.json"]
[earn]
pushups = 0.5
[[group]]
name = "social"
apps = ["discord"]
TOML
echo '{"app":"discord","title":"chat","pid":1}' >"$dir/front.json"
env -i HOME="$dir" TZ=UTC PATH=/usr/bin:/bin "$bin" --config "$dir/blocker.toml" --state-dir "$dir/state" 2>"$dir/err" &
pid=$!
hz=$(getconf CLK_TCK)
# Own CPU from schedstat (ns, exact); reaped children's from stat (clock ticks).
cpu() { echo "$(awk '{print $1}' "/proc/$pid/schedstat") $(awk '{print $16 + $17}' "/proc/$pid/stat")"; }
sleep 2
read -r self0 kids0 < <(cpu)
sleep "$seconds"
read -r self1 kids1 < <(cpu)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
ticks=$seconds
anon=$(awk '/^Anonymous/ {print $2}' "/proc/$pid/smaps_rollup")
awk -v s=$((self1 - self0)) -v k=$((kids1 - kids0)) -v t="$ticks" -v hz="$hz" -v rss="$rss" -v anon="$anon" -v secs="$seconds" 'BEGIN {
    printf "| %-46s | %12.1f us | %-22s |\n", "daemon CPU per tick (" secs " s of 1 Hz)", s / 1000 / t, "<= 300 us"
    printf "| %-46s | %12.1f us | %-22s |\n", "command probe child CPU per tick (/bin/cat)", k / hz / t * 1e6, "(reported separately)"
    printf "| %-46s | %12.1f MiB | %-22s |\n", "daemon RSS after " secs " s", rss / 1024, "<= 20 MiB"
    printf "| %-46s | %12.1f MiB | %-22s |\n", "  of which anonymous (heap, stacks)", anon / 1024, ""
}'
