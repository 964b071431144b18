#!/usr/bin/env bash
# D-Bus benchmarks: `blockerctl status` end to end (median of 100 runs), and
# blockerd answering 1,000 Status calls a second while ticking — with the
# watchdog pings (WATCHDOG=1 on a NOTIFY_SOCKET we listen on) still arriving.
#   scripts/bench-bus.sh RELEASE_BIN_DIR     prints table rows
set -euo pipefail
bin=$1
source "$(dirname "$0")/lib/fixtures.sh"
fx_begin bench-bus
dir=$fx_dir
read -r address bus_pid < <(fx_session_bus "$dir")
fx_track "$bus_pid"
export DBUS_SESSION_BUS_ADDRESS=$address HOME=$dir TZ=UTC
fx_config "$dir/.config/blocker/blocker.toml" "$dir/front.json"
fx_front "$dir/front.json" discord
# The service manager's side of sd_notify: record when each WATCHDOG=1 arrives.
python3 - "$dir/notify" "$dir/pings" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "w", buffering=1) as out:
    while True:
        data = s.recv(4096)
        if b"WATCHDOG=1" in data:
            out.write(f"{time.monotonic()}\n")
PY
fx_track $!
for _ in $(seq 50); do [ -S "$dir/notify" ] && break; sleep 0.1; done
# blockerd pings at most once per half WatchdogSec: a 2 s watchdog gives a
# ping a second, enough to see one missed during the 10 s of load.
NOTIFY_SOCKET=$dir/notify WATCHDOG_USEC=2000000 "$bin/blockerd" 2>"$dir/daemon.log" &
fx_track $!
fx_wait_daemon "$bin"
"$bin/blockerctl" earn 1000 pushups >/dev/null

median=$(python3 - "$bin/blockerctl" <<'PY'
import subprocess, sys, time, statistics
runs = []
for _ in range(100):
    t = time.perf_counter()
    subprocess.run([sys.argv[1], "status"], stdout=subprocess.DEVNULL, check=True)
    runs.append((time.perf_counter() - t) * 1000)
print(f"{statistics.median(runs):.1f}")
PY
)
printf '| %-46s | %12s ms | %-22s |\n' "blockerctl status end to end (median of 100)" "$median" "<= 15 ms"

before=$(wc -l <"$dir/pings")
load=$("$bin/blocker-bench" status-load --rate 1000 --seconds 10)
gap=$(python3 -c '
import sys
t = [float(x) for x in open(sys.argv[1])][int(sys.argv[2]):]
print(f"{max(b - a for a, b in zip(t, t[1:])) * 1000:.0f} {len(t)}")' "$dir/pings" "$before")
read -r maxgap npings <<<"$gap"
rate=$(sed -E 's/.*rate=([0-9.]+).*/\1/' <<<"$load")
failed=$(sed -E 's/.*failed=([0-9]+).*/\1/' <<<"$load")
p99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$load")
printf '| %-46s | %10s /s | %-22s |\n' "Status calls answered (10 s, $failed failed)" "$rate" "1,000 /s"
printf '| %-46s | %12s ms | %-22s |\n' "  Status call latency under that load, p99" "$p99" ""
printf '| %-46s | %12s ms | %-22s |\n' "  longest gap between WATCHDOG=1 ($npings pings)" "$maxgap" "< 2,000 ms (WatchdogSec here)"
