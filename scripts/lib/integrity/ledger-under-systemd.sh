#!/usr/bin/env bash
# Issue 20, rows 12, 10 and 8 as a user would do them, under a real
# `systemd --user`, its session bus (dbus-daemon) and journald
# (scripts/lib/user-manager.sh), with blockerd from its real unit:
#   12  status, then `systemctl --user stop blockerd`: the ledger keeps at least what status showed;
#   10  an EarnOnce that timed out on its client (blockerd stopped past the
#       client's timeout) and was retried with its request id: credited once;
#    8  today's earnings moved to yesterday with sqlite3; an older copy of the
#       ledger put back while blockerd was stopped.
# Run by rows-8-12.sh (its own process: um_enter re-executes it in a private
# mount namespace). Usage: ledger-under-systemd.sh BIN_DIR. Prints one
# "row N: closed|recorded: …" line per row; exit 0 when all held, else 1
# after "FAIL: …". The harness stops everything it started, pass or fail.
set -uo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../user-manager.sh
source "$here/scripts/lib/user-manager.sh"
um_enter "$@"
src_bin=${1:?usage: ledger-under-systemd.sh BIN_DIR}

fail() { echo "FAIL: $*"; um_systemctl status --no-pager -n 20 blockerd.service >&2; exit 1; }
say() { echo "$*"; }

um_start
bin=$UM_HOME/.local/bin
um_install .local/bin "$src_bin/blockerd" "$src_bin/blockerctl" || fail "cannot install the programs"
"$here/scripts/render-units.sh" "$bin" /usr/share/doc/blocker "$UM_UNIT_DIR" blockerd.service
chown "$UM_UID:$UM_GID" "$UM_UNIT_DIR/blockerd.service"
printf '%s\n' '[daemon]' 'probe = "command"' 'poll-interval = "1s"' \
    "probe-command = [\"/bin/cat\", \"$UM_HOME/front.json\"]" \
    '[earn]' 'pushups = 0.5' 'max-per-day = "15m"' '[[group]]' 'name = "social"' 'apps = ["discord"]' |
    um_write .config/blocker/blocker.toml
front() { if [ -n "${1:-}" ]; then echo "{\"app\":\"$1\",\"title\":\"chat\",\"pid\":1}"; else echo null; fi | um_write front.json; }
front ""
db=$UM_HOME/.local/state/blocker/blocker.db
ctl() { um_run "$bin/blockerctl" "$@"; }
sql() { um_run sqlite3 "$db" "$@"; }
balance() { ctl status --json | sed -n 's/.*"balance_ms": *\([0-9]*\).*/\1/p'; }
start() {
    um_systemctl start blockerd.service || fail "systemctl --user start blockerd"
    um_wait_active blockerd.service 10 || fail "blockerd did not start"
    for _ in $(seq 50); do ctl status >/dev/null 2>&1 && return 0; sleep 0.1; done
    fail "blockerd does not answer status"
}
stop() { um_systemctl stop blockerd.service || fail "systemctl --user stop blockerd"; }
um_systemctl daemon-reload || fail "daemon-reload"
start

# --- row 12: status, then a clean stop -------------------------------------
ctl earn 4 pushups >/dev/null || fail "row 12: earn"
front discord
sleep 1.5
given_back=0 worst=0
for i in 1 2 3 4 5; do
    sleep "0.$((RANDOM % 9 + 1))"
    shown=$(balance)
    [ -n "$shown" ] || fail "row 12: no balance_ms in status --json"
    stop
    kept=$(sql "SELECT balance_ms FROM account")
    [ "$kept" -le "$shown" ] || { given_back=$((given_back + 1)); worst=$((kept - shown > worst ? kept - shown : worst)); }
    start
    sleep 1.2
done
front ""
sleep 1.5 # the next sample sees nothing in front: nothing is spent from here on
[ "$given_back" -eq 0 ] || fail "row 12: at $given_back of 5 stops the ledger kept less debit than status showed (up to $worst ms given back)"
say "row 12: closed: at each of 5 stops (systemctl --user stop blockerd, just after status) the ledger kept at least the debit status had shown"

# --- row 10: a timed-out EarnOnce retried ---------------------------------
before=$(balance)
pid=$(um_show blockerd.service MainPID)
[ "${pid:-0}" -gt 0 ] || fail "row 10: no MainPID"
kill -STOP "$pid" # blockerd stalls; the call waits in its socket
# A client that stays connected, waits 1 s for the answer (the overlay waits
# 3 s, the GNOME extension 5 s), then retries with the same request id.
um_run python3 -c '
import sys, time, dbus
proxy = dbus.SessionBus().get_object("io.github.blockerd.Blocker1", "/io/github/blockerd/Blocker1", introspect=False)
earn = proxy.get_dbus_method("EarnOnce", "io.github.blockerd.Blocker1")
try:
    earn("row-10", "pushups", dbus.UInt32(2), timeout=1)
    print("first: answered")
except dbus.DBusException as e:
    print("first:", e.get_dbus_name())
sys.stdout.flush()
time.sleep(2)  # blockerd runs again meanwhile, and credits the call it had
print("retry:", *earn("row-10", "pushups", dbus.UInt32(2), timeout=10))
' >"$UM_HOME/row10.out" 2>&1 &
client=$!
for _ in $(seq 100); do grep -q '^first:' "$UM_HOME/row10.out" && break; sleep 0.1; done
kill -CONT "$pid"
wait "$client" || fail "row 10: the client failed: $(cat "$UM_HOME/row10.out")"
grep -q '^first: org.freedesktop.DBus.Error.NoReply' "$UM_HOME/row10.out" || fail "row 10: the first call did not time out: $(cat "$UM_HOME/row10.out")"
grep -q "^retry: 60000 " "$UM_HOME/row10.out" || fail "row 10: the retry was not answered with the first earning: $(cat "$UM_HOME/row10.out")"
after=$(balance)
[ "$after" -eq $((before + 60000)) ] || fail "row 10: balance $before → $after ms: not credited exactly once (+60000)"
one=$(ctl earn 2 pushups --request-id row-10-cli) && two=$(ctl earn 2 pushups --request-id row-10-cli) || fail "row 10: blockerctl earn --request-id"
[ "$(balance)" -eq $((after + 60000)) ] || fail "row 10: blockerctl earn --request-id twice credited twice ($one / $two)"
say "row 10: closed: an EarnOnce that timed out on its client after blockerd credited it, retried with its request id, was credited once (+1m, not +2m); blockerctl earn --request-id twice, once"

# --- row 8: the ledger edited by hand -------------------------------------
ctl earn 22 pushups >/dev/null || fail "row 8: earning up to max-per-day (15m: 2m + 1m + 1m before, 11m now)"
sql "UPDATE earnings SET day = date(day, '-1 day'), at_ms = at_ms - 86400000" || fail "row 8: sqlite3 edit"
refusal=$(ctl earn 2 pushups 2>&1) && fail "row 8: an earning moved to yesterday lifted max-per-day: $refusal"
grep -q "max-per-day\|earned today\|today" <<<"$refusal" || fail "row 8: refused, but not by max-per-day: $refusal"
um_wait_journal 5 _UID="$UM_UID" BLOCKER_EVENT=ledger-edited >"$UM_HOME/edited.json" || fail "row 8: no ledger-edited event in the journal"
grep -q 'does not follow from the one before it' "$UM_HOME/edited.json" || fail "row 8: the event does not name the broken earning"
doctor=$(ctl doctor 2>&1)
grep -q "the ledger was edited outside blocker" <<<"$doctor" || fail "row 8: doctor does not show the edit: $doctor"
say "row 8: closed: today's earnings moved to yesterday with sqlite3 still count today (the next earn is refused by max-per-day); recorded: a ledger-edited event in the journal and the edit in doctor"

# An older copy put back while blockerd is stopped.
stop
cp "$db" "$UM_HOME/backup.db" && chown "$UM_UID:$UM_GID" "$UM_HOME/backup.db"
start
front discord
sleep 12 # a commit of spending
front ""
stop
um_wait_journal 5 _UID="$UM_UID" BLOCKER_EVENT=ledger-anchor BLOCKER_FINAL=1 >/dev/null || fail "row 8: no final ledger-anchor in the journal at the stop"
um_run cp "$UM_HOME/backup.db" "$db" && um_run rm -f "$db-wal" "$db-shm" || fail "row 8: cannot put the older copy back"
start
for _ in $(seq 50); do
    [ "$(um_journal -q -o json _UID="$UM_UID" BLOCKER_EVENT=ledger-edited | grep -c 'an older copy of the file')" -ge 1 ] && break
    sleep 0.1
done
um_journal -q -o json _UID="$UM_UID" BLOCKER_EVENT=ledger-edited | grep -q 'an older copy of the file' ||
    fail "row 8: the older copy put back was not noticed: $(um_journal -q _UID="$UM_UID" SYSLOG_IDENTIFIER=blockerd | tail -n 5)"
[ "$(sql "SELECT count(*) FROM ledger_edits")" -ge 2 ] || fail "row 8: the older copy is not noted in ledger_edits (doctor)"
journal_file=$(ls /var/log/journal/*/user-"$UM_UID".journal 2>/dev/null | head -n 1)
[ -n "$journal_file" ] || fail "row 8: no user journal file for uid $UM_UID"
um_run test -w "$journal_file" && fail "row 8: the user can write $journal_file"
um_run rm -f "$journal_file" 2>/dev/null; [ -e "$journal_file" ] || fail "row 8: the user could delete $journal_file"
say "row 8: recorded: an older copy of the ledger put back while blockerd was stopped is named at the next start (ledger-edited, doctor), from the anchor in the journal, which the user can neither write nor delete"
stop
exit 0
