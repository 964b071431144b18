#!/usr/bin/env bash
# itest-sync.sh — one balance on every machine ([sync]), with real Syncthing:
# machines A and B (later C), each its own blockerd, home, session bus and
# command probe, their sync folders kept in step by one Syncthing instance
# each on 127.0.0.1 (scripts/lib/syncthing-env.sh: discovery, relays and NAT
# traversal off, the REST API on loopback with a key).
#   1. an earning on A is B's balance within seconds of Syncthing's copy;
#   2. A and B spending at once converge to the same balance;
#   3. with B's Syncthing stopped both go on spending; once it is back both
#      converge, nothing lost or doubled;
#   4. a kill -9 of A's blockerd while it spends, and a torn line at the end
#      of its log (a write the kill cut): nothing torn is counted, and A's
#      restart cuts the torn line and writes what its ledger has;
#   5. a timed block set on A covers B's app;
#   6. a third machine C added later catches up from the folder;
#   7. doctor on C says sync works, with the two other machines;
#   8. A and B spend the last of the balance at once: each stops at its own
#      view's zero, and the overspend (what each spent before it saw the
#      other's records) is measured: all three converge below zero, exact.
# After every step the balances are checked exact: every machine's balance is
# the sum of every log's earnings less every log's spending, read from the
# files themselves. Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
# shellcheck source=lib/syncthing-env.sh
source scripts/lib/syncthing-env.sh
fx_begin itest-sync
started=$SECONDS
fx_need syncthing dbus-daemon python3
fx_programs blockerd blockerctl
export TZ=UTC NO_COLOR=1
unset XDG_CONFIG_HOME XDG_STATE_HOME DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE

declare -A bus=() daemon=()

# machine NAME — a home with a sync folder, a session bus and a config; not started.
machine() {
    local home=$fx_dir/$1 address pid
    mkdir -p "$home/Sync/blocker"
    read -r address pid < <(fx_session_bus "$home") || fail "dbus-daemon for $1 did not start"
    fx_track "$pid"
    bus[$1]=$address
    fx_config "$home/blocker.toml" "$home/front.json"
    printf '[[group]]\nname = "tools"\napps = ["notes"]\nmetered = false\n[sync]\nfolder = "~/Sync/blocker"\n' >>"$home/blocker.toml"
    fx_front "$home/front.json" notes
}

# on NAME COMMAND… — runs COMMAND as machine NAME (its home and bus).
on() {
    local name=$1; shift
    HOME=$fx_dir/$name DBUS_SESSION_BUS_ADDRESS=${bus[$name]} "$@"
}
ctl() { local name=$1; shift; on "$name" "$bin/blockerctl" "$@"; }
status() { ctl "$1" status --json | fx_json "$2"; }
balance() { status "$1" 's["balance_ms"]'; }
front() { fx_front "$fx_dir/$1/front.json" "$2"; }

start_blockerd() {
    # Not through `on`: $! must be blockerd itself (the kill -9 of step 4).
    HOME=$fx_dir/$1 DBUS_SESSION_BUS_ADDRESS=${bus[$1]} "$bin/blockerd" --config "$fx_dir/$1/blocker.toml" \
        --state-dir "$fx_dir/$1/state" >>"$fx_dir/blockerd-$1.log" 2>&1 &
    daemon[$1]=$!
    fx_track "${daemon[$1]}"
    fx_wait 10 eval "ctl $1 status >/dev/null 2>&1" || fail "blockerd $1 does not answer"
    [ "$(status "$1" 's.get("sync", {}).get("problem")')" = None ] || fail "sync is off on $1: $(ctl "$1" devices)"
}

# What the logs in NAME's folder add up to: every earning less every spending (ms).
logs_balance() {
    python3 - "$fx_dir/$1/Sync/blocker" <<'PY'
import json, os, sys
total = 0
for name in sorted(os.listdir(sys.argv[1])):
    if not name.endswith(".log"):
        continue
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    for line in data.split(b"\n")[:-1]:          # a torn last line is no record
        record = json.loads(line.rsplit(b" ", 1)[0])
        total += record["ms"] if record["kind"] == "earn" else -record["ms"] if record["kind"] == "spend" else 0
print(total)
PY
}

# converged NAMES… — every machine's balance equals the sum of every log, in each machine's folder.
converged() {
    local name expected
    expected=$(logs_balance "$1")
    for name in "$@"; do
        [ "$(logs_balance "$name")" = "$expected" ] && [ "$(balance "$name")" = "$expected" ] || return 1
    done
}
say_balances() { local name; for name in "$@"; do printf '%s: balance %s, logs %s; ' "$name" "$(balance "$name")" "$(logs_balance "$name")"; done; }

# Syncthing A and B, sharing the folder; blockerd on each.
machine A
machine B
st_start A
st_start B
st_share blocker A "$fx_dir/A/Sync/blocker" B "$fx_dir/B/Sync/blocker"
st_wait_synced A blocker
start_blockerd A
start_blockerd B
ok "0. Syncthing A and B share the folder; blockerd on each with [sync]"

# 1. An earning on A is B's balance.
t0=$(fx_now_ms)
ctl A earn 1 pushups >/dev/null || fail "blockerctl earn on A failed"
fx_wait 10 eval '[ "$(balance B)" = 30000 ]' || fail "A's earning is not B's balance: $(say_balances A B)"
ok "1. 1 pushup on A: B's balance 30s after $(( $(fx_now_ms) - t0 )) ms (Syncthing's copy included)"

# 2. Both spending at once, then neither: the same balance on both, exact.
front A discord
front B discord
sleep 3
front A notes
front B notes
t0=$(fx_now_ms)
fx_wait 30 converged A B || fail "A and B did not converge after spending at once: $(say_balances A B)"
spent=$((30000 - $(balance A)))
[ "$spent" -ge 4000 ] || fail "A and B spent only $spent ms in 3 s each"
ok "2. A and B spent 3 s each at once ($spent ms in all): both at $(balance A) ms, the sum of the logs, $(( $(fx_now_ms) - t0 )) ms after they stopped"

# 3. B's Syncthing stopped: both spend apart; back: both converge.
st_stop B
before=$(balance A)
front A discord
front B discord
sleep 3
front A notes
front B notes
# Each has written its spending (at the commit after it stops) and sees only its own.
own_written() { [ "$(balance "$1")" = "$(logs_balance "$1")" ] && [ "$(balance "$1")" -lt "$2" ]; }
fx_wait 20 own_written A "$before" || fail "A did not write its spending: $(say_balances A)"
fx_wait 20 own_written B "$before" || fail "B did not write its spending: $(say_balances B)"
[ "$(balance A)" != "$(balance B)" ] || fail "with B's Syncthing stopped A and B still agree ($(balance A)): the test proves nothing"
apart="$(say_balances A B)"
st_restart B
t0=$(fx_now_ms)
fx_wait 30 converged A B || fail "A and B did not converge after B's Syncthing came back: $(say_balances A B)"
ok "3. apart (${apart%; }), then $(( $(fx_now_ms) - t0 )) ms after B's Syncthing restarted both at $(balance A) ms, exact"

# 4. kill -9 of A's blockerd while it spends; a torn line at its log's end.
front A discord
sleep 3
kill -KILL "${daemon[A]}"
wait "${daemon[A]}" 2>/dev/null || true
log=$fx_dir/A/Sync/blocker/$(cat "$fx_dir/A/state/device-id").000001.log
[ -s "$log" ] || fail "no log of A's in its folder: $(ls "$fx_dir/A/Sync/blocker")"
# B first has all A wrote before the kill (near zero A writes every 5 s).
has_all_of_a() { [ "$(logs_balance B)" = "$(logs_balance A)" ] && [ "$(balance B)" = "$(logs_balance B)" ]; }
fx_wait 10 has_all_of_a || fail "B did not get A's log as the kill left it: $(say_balances A B)"
printf '{"v":1,"device":"%s","seq":999' "$(cat "$fx_dir/A/state/device-id")" >>"$log"
before_b=$(balance B)
sleep 3
[ "$(balance B)" = "$before_b" ] || fail "B counted something of A's torn line: $before_b → $(balance B) ms"
grep -q "event=sync-refused" "$fx_dir/blockerd-B.log" && fail "B refused a line of the torn tail: $(grep sync-refused "$fx_dir/blockerd-B.log" | tail -n 1)"
front A notes
start_blockerd A
[ "$(tail -c 1 "$log" | od -An -tx1 | tr -d ' ')" = 0a ] \
    || fail "A's restart did not cut the torn line of its log: it ends $(tail -c 40 "$log" | od -c | tail -n 3)"
fx_wait 30 converged A B || fail "A and B did not converge after A's kill -9: $(say_balances A B)"
ok "4. kill -9 of A's blockerd while spending, a torn line at its log's end: B counted nothing of it, A's restart cut it; both at $(balance A) ms, exact"

# 5. A timed block on A covers B's discord.
front B discord
ctl A block social --for 10m >/dev/null || fail "blockerctl block on A failed"
fx_wait 10 eval '[ "$(status B "s[\"shield\"].get(\"reason\")")" = timed-block ]' \
    || fail "A's block does not cover B's discord: $(status B 's["shield"]')"
ctl B unblock social >/dev/null || fail "blockerctl unblock on B (of A's block) failed"
fx_wait 5 eval '[ "$(status B "s[\"shield\"][\"active\"]")" = False ]' || fail "B's unblock did not lift A's block: $(status B 's["shield"]')"
front B notes
ok "5. a block set on A covers B's discord (timed-block); B's unblock of it lifts it"

# 6. A third machine joins later and catches up from the folder.
machine C
st_start C
st_share blocker C "$fx_dir/C/Sync/blocker" A "$fx_dir/A/Sync/blocker" B "$fx_dir/B/Sync/blocker"
t0=$(fx_now_ms)
st_wait_synced C blocker 60
start_blockerd C
fx_wait 30 converged A B C || fail "C did not catch up: $(say_balances A B C)"
[ "$(ctl C devices --json | fx_json 'len(s["devices"])')" = 2 ] || fail "C does not see two other devices: $(ctl C devices)"
ok "6. C joined later: caught up from the folder in $(( $(fx_now_ms) - t0 )) ms; A, B and C at $(balance C) ms, exact"
ctl C devices | sed 's/^/    /' >&2
doctor=$(ctl C doctor 2>&1 || true)
grep -q "^OK    sync .*2 other machines read" <<<"$doctor" || fail "doctor on C: $(grep -i sync <<<"$doctor")"
ok "7. doctor on C: $(grep '^OK    sync' <<<"$doctor" | tr -s ' ')"

# 8. The last of the balance spent on A and B at once.
left=$(balance A)
[ "$left" -gt 3000 ] || fail "too little balance left for step 8: $left ms"
front A discord
front B discord
covered() { [ "$(status "$1" 's["shield"].get("reason")')" = balance ]; }
fx_wait 90 covered A || fail "A never reached zero: $(say_balances A B)"
fx_wait 90 covered B || fail "B never reached zero: $(say_balances A B)"
front A notes
front B notes
fx_wait 30 converged A B C || fail "A, B and C did not converge after the balance ran out: $(say_balances A B C)"
over=$((-$(balance A)))
[ "$over" -ge 0 ] && [ "$over" -le "$left" ] || fail "the overspend $over ms is outside 0..$left ms"
ok "8. $left ms left, spent on A and B at once: both covered at their own zero; overspent by $over ms (each spent what it had not yet seen the other spend), all three at -$over ms, exact"

ok "pass in $((SECONDS - started)) s"
