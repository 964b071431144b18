#!/usr/bin/env bash
# bench-kde.sh — blockerd's CPU with the kde probe under a real KWin 5.27
# (virtual, Xwayland), blocker's KWin script reporting: per focus change (a
# test-only KWin script switches between gtk3-demo and a metered xterm N
# times, 50 ms apart; blockerd's CPU time from /proc/PID/task/*/schedstat
# over the run, divided by N), and per second with nothing changing (the
# metered xterm not in front).
# Prints `| label | value | target |` rows.
#   N=200 (focus changes), IDLE_S=20
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
# shellcheck source=lib/kwin-env.sh
source scripts/lib/kwin-env.sh
fx_begin bench-kde
changes=${N:-200}
idle_seconds=${IDLE_S:-20}
fx_programs blockerd
kw_init
KPACKAGETOOL=none KWRITECONFIG=none scripts/install-kwin-script.sh install >/dev/null
kw_start_kwin
kw_open_clients bench-meter
cat >"$fx_dir/blocker.toml" <<'TOML'
[daemon]
probe = "kde"
[earn]
pushups = 60
[[group]]
name = "meter"
apps = ["blockermeter"]
TOML
"$bin/blockerd" --config "$fx_dir/blocker.toml" --state-dir "$fx_dir/state" >"$fx_dir/blockerd.log" 2>&1 &
daemon=$!
fx_track $daemon
for _ in $(seq 100); do "$bin/blockerctl" status >/dev/null 2>&1 && break; sleep 0.1; done
"$bin/blockerctl" earn 10 pushups >/dev/null || fail "blockerctl earn failed"
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
sleep 1

# CPU time in ns of every thread of PID: schedstat's run time (utime+stime in
# /proc/PID/stat counts 10 ms ticks, too coarse for one focus change).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{sum += $1} END {print sum}'; }

cat >"$fx_dir/switch.js" <<JS
// Bench only: $changes activations, 50 ms apart, alternating two windows.
const names = ["bench-meter", "gtk3-demo"];
let done = 0;
const timer = new QTimer();
timer.interval = 50;
timer.timeout.connect(() => {
    if (done >= $changes) { timer.stop(); print("bench-switches-done"); return; }
    const window = workspace.clientList().find(w => String(w.resourceName) === names[done % 2]);
    workspace.activeClient = window;
    done++;
});
timer.start();
JS
before=$(cpu_ns $daemon)
started=$(date +%s%N)
kw_run_js blocker-bench-switch "$fx_dir/switch.js"
for _ in $(seq 1200); do grep -q "js: bench-switches-done" "$fx_dir/kwin.log" && break; sleep 0.05; done
grep -q "js: bench-switches-done" "$fx_dir/kwin.log" || fail "the switching script did not finish"
sleep 0.5
after=$(cpu_ns $daemon)
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
[ "$("$bin/blockerctl" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["probe"]["ok"])')" = True ] \
    || fail "the kde probe failed during the run"
per_change_us=$(((after - before) / 1000 / changes))

kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
# Idle is what comes once the switching is over: the time the metered xterm
# was in front is committed up to 10 s later (Daemon.commitEveryMs), once.
sleep 11
before=$(cpu_ns $daemon)
sleep "$idle_seconds"
after=$(cpu_ns $daemon)
idle_us=$(((after - before) / 1000 / idle_seconds))

echo "| kde: blockerd CPU per focus change ($changes changes in $elapsed_ms ms, KWin script → Report) | ${per_change_us} µs | < 1000 µs |"
echo "| kde: blockerd CPU per second, nothing changing (not metered in front) | ${idle_us} µs/s | < 100 µs/s |"
