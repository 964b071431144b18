#!/usr/bin/env bash
# The unguarded part of a gap, end to end: the real blockerd on a real session
# dbus-daemon, and python3-dbusmock's logind template on a private system bus
# (the one fake: no logind can run here). blockerd is stopped; during the gap
# a graphical (x11) session of this user appears in logind, next to a tty
# session of ours and an x11 session of another user that are older than the
# gap (neither counts). At the next start the gap event says how much of the
# gap was in the graphical session, and `blockerctl history --json` and
# `--csv --gaps` carry the same figure. Then logind goes away: the next gap
# has no figure, one info line says why, and blockerd starts all the same.
# Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-gaps
fx_programs blockerd blockerctl
dir=$fx_dir
trap fx_cleanup EXIT
python=/usr/bin/python3
for tool in dbus-daemon gdbus $python; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh)"
done
$python -c 'import dbusmock' 2>/dev/null || fail "python3-dbusmock is not installed (scripts/deps.sh)"
ctl() { "$bin/blockerctl" "$@"; }

"$bin/blockerd" --help | grep -q -- "--record-stop" || fail "blockerd --help does not list --record-stop"

read -r address bus_pid < <(fx_session_bus "$dir") || fail "the session dbus-daemon did not start"
fx_track "$bus_pid"
mkdir -p "$dir/sys"
read -r system_bus system_bus_pid < <(fx_session_bus "$dir/sys") || fail "the private system dbus-daemon did not start"
fx_track "$system_bus_pid"
export DBUS_SESSION_BUS_ADDRESS=$address DBUS_SYSTEM_BUS_ADDRESS=$system_bus TZ=UTC NO_COLOR=1 HOME=$dir
unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_SESSION_ID DISPLAY WAYLAND_DISPLAY SWAYSOCK JOURNAL_STREAM
$python -m dbusmock --system --template logind >"$dir/logind.log" 2>&1 &
logind_pid=$!
fx_track "$logind_pid"
logind() { gdbus call --system -d org.freedesktop.login1 "$@" >/dev/null; }
for _ in $(seq 100); do logind -o /org/freedesktop/login1 -m org.freedesktop.login1.Manager.ListUsers 2>/dev/null && break; sleep 0.1; done
add_session() {   # ID UID TYPE TIMESTAMP_US
    logind -o /org/freedesktop/login1 -m org.freedesktop.DBus.Mock.AddSession "$1" seat0 "$2" "user$2" true \
        || fail "the mock logind did not take AddSession $1"
    logind -o "/org/freedesktop/login1/session/$1" -m org.freedesktop.DBus.Properties.Set \
        org.freedesktop.login1.Session Type "<\"$3\">" || fail "the mock logind did not take Type = $3"
    logind -o "/org/freedesktop/login1/session/$1" -m org.freedesktop.DBus.Properties.Set \
        org.freedesktop.login1.Session Timestamp "<uint64 $4>" || fail "the mock logind did not take Timestamp"
}
now_ms() { date +%s%3N; }
uid=$(id -u)
add_session c1 "$uid" tty $(( ($(now_ms) - 3600000) * 1000 ))
add_session c2 $((uid + 4242)) x11 $(( ($(now_ms) - 3600000) * 1000 ))

fx_config "$dir/.config/blocker/blocker.toml" "$dir/front.json"
echo null >"$dir/front.json"

# Run 1, then a clean stop: the gap starts.
fx_start_blockerd "$bin"
fx_stop "$fx_daemon_pid"
stopped_ms=$(now_ms)
sleep 1
session_ms=$(( $(now_ms) + 500 ))
add_session c3 "$uid" x11 $(( session_ms * 1000 ))
sleep 2
: >"$dir/daemon.log"
fx_start_blockerd "$bin"
gap_line=$(grep "event=gap" "$dir/daemon.log") || fail "no gap line at the start: $(cat "$dir/daemon.log")"
grep -q "): stopped; .* of it in the graphical session" <<<"$gap_line" \
    || fail "the gap line does not say the unguarded time in words: $gap_line"
unguarded=$(sed -n 's/.* unguarded_ms=\([0-9]*\).*/\1/p' <<<"$gap_line")
from=$(sed -n 's/.* from_ms=\([0-9]*\).*/\1/p' <<<"$gap_line")
gap=$(sed -n 's/.* gap_ms=\([0-9]*\).*/\1/p' <<<"$gap_line")
[ -n "$unguarded" ] && [ -n "$from" ] && [ -n "$gap" ] || fail "the gap line lacks unguarded_ms, from_ms or gap_ms: $gap_line"
# Unguarded from the x11 session's creation to the start, not the whole gap
# (the tty session and the other user's are older than the gap).
[ "$unguarded" -eq $(( from + gap - session_ms )) ] \
    || fail "unguarded_ms=$unguarded, expected $(( from + gap - session_ms )) (start $((from + gap)) - session $session_ms): $gap_line"
[ "$unguarded" -lt "$gap" ] || fail "unguarded_ms=$unguarded is not less than the gap $gap"
[ "$from" -le "$stopped_ms" ] || fail "the gap starts at $from, after the stop at $stopped_ms"
ok "the gap event: $unguarded ms of a $gap ms gap in the graphical session ($gap_line)"

ctl history --days 2 --json >"$dir/history.json" || fail "history --json"
$python - "$dir/history.json" "$from" "$unguarded" <<'PY' || fail "history --json: $(cat "$dir/history.json")"
import json, sys
days = json.load(open(sys.argv[1]))
start, unguarded = int(sys.argv[2]), int(sys.argv[3])
parts = [g for d in days for g in d["gaps"] if g["start_ms"] >= start]
assert parts and all(g["reason"] == "stopped" for g in parts), parts
assert sum(g["unguarded_ms"] for g in parts) == unguarded, parts
PY
ctl history --days 2 --csv --gaps >"$dir/gaps.csv" || fail "history --csv --gaps"
head -1 "$dir/gaps.csv" | grep -qx "day,start_ms,end_ms,reason,unguarded_ms" || fail "history --csv --gaps header: $(cat "$dir/gaps.csv")"
grep -q ",stopped,$unguarded\$" "$dir/gaps.csv" || fail "history --csv --gaps lacks the gap's $unguarded ms: $(cat "$dir/gaps.csv")"
drawn=$(ctl history --days 1) || fail "history"
grep -q "off .* (stopped; .* unguarded)" <<<"$drawn" || fail "history does not show the unguarded time: $drawn"
ok "history --json, --csv --gaps and the chart carry the same unguarded time"

# logind goes away: the next gap has no figure, one info line, a normal start.
fx_stop "$fx_daemon_pid"
fx_stop "$logind_pid"
sleep 1
: >"$dir/daemon.log"
fx_start_blockerd "$bin"
gap_line=$(grep "event=gap" "$dir/daemon.log") || fail "no gap line without logind: $(cat "$dir/daemon.log")"
grep -q "unguarded_ms=" <<<"$gap_line" && fail "an unguarded figure without logind: $gap_line"
[ "$(grep -c "No unguarded time" "$dir/daemon.log")" -eq 1 ] || fail "not one line saying why there is no figure: $(cat "$dir/daemon.log")"
grep -q "^<6>No unguarded time.*login1" "$dir/daemon.log" || fail "the line is not info priority naming logind: $(cat "$dir/daemon.log")"
ctl history --days 2 --json >"$dir/history.json" || fail "history --json without logind"
$python - "$dir/history.json" <<'PY' || fail "history --json without logind: $(cat "$dir/history.json")"
import json, sys
days = json.load(open(sys.argv[1]))
last = [g for d in days for g in d["gaps"]][-1]
assert last["unguarded_ms"] is None, last
PY
ok "without logind: no figure, one info line, blockerd runs"
