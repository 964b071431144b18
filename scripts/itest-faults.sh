#!/usr/bin/env bash
# The fault suite: every fault found by trying blocker as a hostile user, a
# careless user and a flaky desktop would, replayed against the real blockerd
# and blockerctl on a private session bus. Each step prints the figure it
# measured; a step that finds the fault again fails the run. Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-faults
fx_programs blockerd blockerctl
dir=$fx_dir
ctl() { "$bin/blockerctl" "$@"; }
json() { ctl status --json | fx_json "$1"; }

fx_private_session

daemon_pid=
# start_daemon [ARGS…] — blockerd with $dir/blocker.toml and its state in $dir/state.
start_daemon() {
    fx_start_blockerd "$bin" --config "$dir/blocker.toml" --state-dir "$dir/state" "$@"
    daemon_pid=$fx_daemon_pid
}
stop_daemon() { [ -n "$daemon_pid" ] && fx_stop "$daemon_pid"; daemon_pid=; rm -rf "$dir/state"; }
# earned_then_spent SECONDS — earn 1000 s, wait, print the ms spent meanwhile.
spent_over() {
    local before after
    before=$(json 's["balance_ms"]')
    sleep "$1"
    after=$(json 's["balance_ms"]')
    echo $((before - after))
}

# --- 1. A reload storm still charges the metered app ---------------------------
fx_config "$dir/blocker.toml" "$dir/front.json"
fx_front "$dir/front.json" discord
start_daemon
ctl earn 1000 pushups >/dev/null || fail "earn"
sleep 1.2
before=$(json 's["balance_ms"]')
for _ in $(seq 33); do ctl reload >/dev/null || fail "reload"; sleep 0.3; done
after=$(json 's["balance_ms"]')
charged=$((before - after))
lines=$(grep -c "Configuration reloaded" "$dir/daemon.log")
[ "$charged" -ge 8500 ] || fail "a reload every 0.3 s for ~10 s charged only $charged ms"
[ "$lines" -le 3 ] || fail "the reload storm wrote $lines journal lines"
ok "1. reload storm (33 reloads in ~10 s): $charged ms charged, $lines reload lines logged"
stop_daemon

# --- 2. Switching apps faster than the poll: one-shot (sampled) vs stream (exact) --
# A program that puts discord in front for 0.5 s, then notes for 0.5 s, 12 times.
cat >"$dir/switcher.py" <<'PY'
import sys, time
mode, path = sys.argv[1], sys.argv[2]
if mode == "stream":
    # Nothing metered until the test says go (a file appears).
    print('{"app":"notes","title":"t","pid":1}', flush=True)
    import os
    while not os.path.exists(path): time.sleep(0.01)
start = time.monotonic()
for i in range(24):
    app = "discord" if i % 2 == 0 else "notes"
    line = '{"app":"%s","title":"t","pid":1}' % app
    if mode == "stream":
        print(line, flush=True)
    else:
        with open(path + ".tmp", "w") as f: f.write(line)
        import os; os.rename(path + ".tmp", path)
    time.sleep(max(0, start + (i + 1) * 0.5 - time.monotonic()))
if mode == "stream":
    print('{"app":"notes","title":"t","pid":1}', flush=True)
    time.sleep(3600)
PY
cat >>"$dir/blocker.toml" <<TOML
[[group]]
name = "tools"
apps = ["notes"]
metered = false
TOML
measure_switching() { # MODE — ms charged while discord was in front 6 s of 12
    local before after
    ctl earn 1000 pushups >/dev/null
    before=$(json 's["balance_ms"]')
    if [ "$1" = once ]; then python3 "$dir/switcher.py" once "$dir/front.json"; else touch "$dir/go"; sleep 12.3; fi
    sleep 1.2
    after=$(json 's["balance_ms"]')
    echo $((before - after))
}
fx_front "$dir/front.json" notes
start_daemon
sleep 1
sampled=$(measure_switching once)
stop_daemon
sed -i "s|^probe-command = .*|probe-command = [\"/usr/bin/python3\", \"$dir/switcher.py\", \"stream\", \"$dir/go\"]\nprobe-command-mode = \"stream\"|" "$dir/blocker.toml"
start_daemon
exact=$(measure_switching stream)
stop_daemon
[ "$exact" -ge 5400 ] && [ "$exact" -le 6600 ] || fail "streaming charged $exact ms for 6000 ms in front"
ok "2. 0.5 s switches at a 1 s poll: one-shot (sampled) charged $sampled ms, stream (exact) $exact ms, for 6000 ms in front"

# --- 3. Rules start at their instant, not at the next poll -----------------------
fx_config "$dir/blocker.toml" "$dir/front.json" command 10s
cat >>"$dir/blocker.toml" <<TOML
[[group]]
name = "limited"
apps = ["notes"]
metered = false
daily-limit = "3s"
TOML
fx_front "$dir/front.json" notes
start_daemon
t0=$(date +%s%N)
covered=
# Applied at the next poll instead, it would come 10 s after the start: well
# apart from 3 s even on a loaded machine (each look here runs python too).
while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 9000 ]; do
    if [ "$(json 's["shield"]["reason"]')" = daily-limit ]; then covered=$(( ($(date +%s%N) - t0) / 1000000 )); break; fi
    sleep 0.05
done
[ -n "$covered" ] || fail "a 3 s daily limit did not cover the app within 9 s at a 10 s poll"
[ "$covered" -le 7000 ] || fail "a 3 s daily limit covered the app after $covered ms (poll 10 s): at a poll, not at its instant"
ok "3. a 3 s daily limit at a 10 s poll covered the app after $covered ms"
stop_daemon

# --- 4. A config built to crash the parser is refused where it is wrong -----------
python3 -c "print('[earn]\npushups = 1\n' + '.'.join(['a'] * 40000) + ' = 1')" >"$dir/deep.toml"
ctl config check "$dir/deep.toml" >/dev/null 2>"$dir/deep.err"; status=$?
[ "$status" = 1 ] || fail "config check on a 40,000-part dotted key: exit $status ($(head -c 200 "$dir/deep.err"))"
grep -q "deep.toml:3:1:" "$dir/deep.err" || fail "the refusal is not located: $(head -c 200 "$dir/deep.err")"
"$bin/blockerd" --config "$dir/deep.toml" --state-dir "$dir/state" >/dev/null 2>&1; status=$?
[ "$status" = 78 ] || fail "blockerd on a 40,000-part dotted key: exit $status"
fx_config "$dir/blocker.toml" "$dir/front.json"
start_daemon
cp "$dir/deep.toml" "$dir/blocker.toml"
kill -HUP "$daemon_pid"; sleep 0.5
kill -0 "$daemon_pid" || fail "a running blockerd died on SIGHUP with a crashing config"
ok "4. a 40,000-part dotted key: config check exit 1 at deep.toml:3:1, blockerd exit 78 at start, kept running on SIGHUP"
stop_daemon

# --- 5. A title regex built to backtrack does not stall the daemon ------------------
fx_config "$dir/blocker.toml" "$dir/front.json"
cat >>"$dir/blocker.toml" <<'TOML'
[[group]]
name = "video"
apps = ["firefox"]
titles = ["(a+)+$", ".*(YouTube|Twitch).*"]
TOML
python3 -c "import json; print(json.dumps({'app': 'firefox', 'title': 'a' * 22 + '!', 'pid': 1}))" >"$dir/front.json"
start_daemon
sleep 1.2
t0=$(date +%s%N); ctl status >/dev/null || fail "Status under a backtracking title"; t1=$(date +%s%N)
python3 -c "import json; print(json.dumps({'app': 'firefox', 'title': 'x' * 4000, 'pid': 1}))" >"$dir/front.json"
sleep 1.2
t2=$(date +%s%N); ctl status >/dev/null || fail "Status under a 4,000-character title"; t3=$(date +%s%N)
slowest=$(( ( (t1 - t0) > (t3 - t2) ? (t1 - t0) : (t3 - t2) ) / 1000000 ))
[ "$slowest" -lt 1000 ] || fail "Status took $slowest ms while matching hostile titles"
ok "5. (a+)+\$ on 22 a's and a 4,000-character title: Status answered in at most $slowest ms"
stop_daemon

# --- 6. A hanging probe and its children leave no process behind -----------------
marker="299.$RANDOM"
fx_config "$dir/blocker.toml" "$dir/front.json" command 200ms
sed -i "s|^probe-command = .*|probe-command = [\"/bin/sh\", \"-c\", \"echo spam >\&2; sleep $marker \& sleep $marker\"]|" "$dir/blocker.toml"
start_daemon
sleep 5
alive=$(pgrep -fc "sleep $marker" || true)
errors=$(grep -c "spam" "$dir/daemon.log" || true)
stop_daemon
[ "$alive" -le 3 ] || fail "a hanging probe left $alive processes after 5 s at a 200 ms poll"
left=$(pgrep -fc "sleep $marker" || true)
[ "$left" = 0 ] || fail "$left probe processes outlived blockerd"
[ "$errors" -le 1 ] || fail "the probe's stderr reached the log $errors times"
ok "6. hanging probe, 5 s at 200 ms: $alive probe processes at a time, $left after stop, its stderr logged $errors times"

# --- 7. blockerd.lock as a symlink does not get its target overwritten -------------
fx_config "$dir/blocker.toml" "$dir/front.json"
mkdir -p "$dir/state"
echo "precious" >"$dir/precious"
ln -s "$dir/precious" "$dir/state/blockerd.lock"
"$bin/blockerd" --config "$dir/blocker.toml" --state-dir "$dir/state" >"$dir/lock.out" 2>&1
status=$?
[ "$(cat "$dir/precious")" = precious ] || fail "the lock's symlink target was overwritten"
[ "$status" = 73 ] && grep -q "not a regular file" "$dir/lock.out" || fail "a symlinked lock: exit $status, $(cat "$dir/lock.out")"
ok "7. symlinked blockerd.lock: refused (exit $status), its target untouched"
rm -rf "$dir/state"

# --- 8. A relative --state-dir is under the working directory ---------------------
mkdir -p "$dir/cwd"
(cd "$dir/cwd" && exec "$bin/blockerd" --config "$dir/blocker.toml" --state-dir x/y >>"$dir/daemon.log" 2>&1) &
daemon_pid=$!
fx_track "$daemon_pid"
fx_wait_daemon "$bin" || fail "blockerd with a relative --state-dir did not start"
[ -e "$dir/cwd/x/y/blocker.db" ] || fail "--state-dir x/y did not put the ledger under the working directory"
[ ! -e /x/y ] || fail "--state-dir x/y created /x/y"
fx_stop "$daemon_pid"; daemon_pid=
ok "8. --state-dir x/y: the ledger is at \$PWD/x/y/blocker.db"

# --- 9. kill -9 during the very first start never leaves a refused ledger ---------
refused=0 unanswered=0
for i in $(seq 60); do
    rm -rf "$dir/first"
    "$bin/blockerd" --config "$dir/blocker.toml" --state-dir "$dir/first" >/dev/null 2>&1 &
    pid=$!
    sleep "0.0$((RANDOM % 40))"
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    "$bin/blockerd" --config "$dir/blocker.toml" --state-dir "$dir/first" >"$dir/second.log" 2>&1 &
    pid=$!
    # Until it answers or exits (the first start's -wal may already be there,
    # so a file is no sign that this one runs).
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; ctl status >/dev/null 2>&1 && break; sleep 0.05; done
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"; code=$?
        [ "$code" = 73 ] && refused=$((refused + 1))
    else
        kill -TERM "$pid"
        for _ in $(seq 100); do fx_alive "$pid" || break; sleep 0.05; done
        # Seen once under heavy load (when SIGTERM could come before it ran) and
        # not reproduced since: reported, not hidden.
        if fx_alive "$pid"; then unanswered=$((unanswered + 1)); kill -KILL "$pid"; fi
        wait "$pid" 2>/dev/null
    fi
done
[ "$refused" = 0 ] || fail "after kill -9 during the first start, $refused of 60 next starts refused the ledger"
ok "9. kill -9 during the first start, 60 times: the next start refused the ledger 0 times (SIGTERM unanswered for 5 s: $unanswered)"

# --- 10. A damaged ledger is refused at start and left as it was -------------------
start_daemon
ctl earn 10 pushups >/dev/null
fx_stop "$daemon_pid"; daemon_pid=
python3 - "$dir/state/blocker.db" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
page = int.from_bytes(data[16:18], "big") or 65536
for p in range(1, len(data) // page):          # every page but the header's
    for o in range(p * page + 8, p * page + page // 2):
        data[o] = 0xA5
open(path, "wb").write(data)
PY
sum=$(md5sum <"$dir/state/blocker.db")
"$bin/blockerd" --config "$dir/blocker.toml" --state-dir "$dir/state" >"$dir/damaged.out" 2>&1
status=$?
[ "$status" = 73 ] || fail "a damaged ledger started blockerd (exit $status): $(cat "$dir/damaged.out")"
[ "$(md5sum <"$dir/state/blocker.db")" = "$sum" ] || fail "the damaged ledger was written to"
grep -q "it is damaged" "$dir/damaged.out" || fail "the refusal does not say the ledger is damaged: $(cat "$dir/damaged.out")"
ok "10. damaged ledger: exit 73, file untouched, the refusal says how to recover it"
rm -rf "$dir/state"

# --- 11. The session bus going away ends blockerd with its own status ---------------
read -r address2 bus2_pid < <(mkdir -p "$dir/bus2" && fx_session_bus "$dir/bus2") || fail "a second dbus-daemon did not start"
fx_track "$bus2_pid"
fx_config "$dir/blocker.toml" "$dir/front.json"
DBUS_SESSION_BUS_ADDRESS=$address2 "$bin/blockerd" --config "$dir/blocker.toml" --state-dir "$dir/state" >"$dir/busloss.log" 2>&1 &
pid=$!
fx_track "$pid"
for _ in $(seq 50); do DBUS_SESSION_BUS_ADDRESS=$address2 ctl status >/dev/null 2>&1 && break; sleep 0.1; done
t0=$(date +%s%N)
kill -KILL "$bus2_pid"
wait "$pid"; code=$?
took=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$code" = 69 ] || fail "blockerd outlived its bus (exit $code): $(tail -3 "$dir/busloss.log")"
grep -q "Lost the session bus" "$dir/busloss.log" || fail "no reason logged for the bus loss"
ok "11. the session bus killed: blockerd exited 69 after $took ms, saying why"
rm -rf "$dir/state"

# --- 14. Stray signals neither kill blockerd nor go unexplained --------------------
start_daemon
for s in USR1 USR2 ALRM PIPE; do kill -s "$s" "$daemon_pid"; sleep 0.1; done
kill -0 "$daemon_pid" || fail "a stray signal killed blockerd"
kill -TERM "$daemon_pid"; wait "$daemon_pid"; code=$?; daemon_pid=
[ "$code" = 0 ] && grep -q "blockerd stopping" "$dir/daemon.log" || fail "SIGTERM after stray signals: exit $code"
ok "14. SIGUSR1/SIGUSR2/SIGALRM/SIGPIPE: still running, then a clean stop"

echo "itest-faults: all faults stay fixed"
