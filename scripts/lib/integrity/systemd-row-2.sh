#!/usr/bin/env bash
# Issue 20, row 2 as a user would do it under a real `systemd --user`, its
# session bus and journald (scripts/lib/user-manager.sh): blockerd.service and
# blocker-overlay.service as `make install` renders them, on Xvfb + openbox,
# the user manager told DISPLAY as a graphical session's start-up tells it
# (import-environment), blockerd with its x11 probe. A zero balance and an
# xterm (metered) in front: the shield is up and blocker-overlay covers it.
#   (a) `systemctl --user stop blocker-overlay.service`: no exit systemd
#       restarts from (Restart=always or not); blockerd says no cover is
#       drawn (cover-missing), asks the user manager for the unit (StartUnit
#       on the session bus: the manager's debug log names the caller, which
#       must be blockerd's connection), and says the stretch and what it
#       charged once the cover is back (cover-back, history);
#   (b) `kill -TERM` of the overlay: Restart=always brings it back (the
#       unit's restart counter), and the stretch is said and charged too.
# Run by rows-2-systemd.sh (its own process: um_enter re-executes it in a
# private mount namespace). Usage: systemd-row-2.sh BIN_DIR. Prints one
# "row 2 (systemd --user): …" line; exit 0 when the row held, else 1 after
# "FAIL: …". Everything it started is stopped on exit, pass or fail: Xvfb and
# openbox by PID (fixtures.sh), the rest with the user manager's cgroups.
set -uo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../user-manager.sh
source "$here/scripts/lib/user-manager.sh"
um_enter "$@"
src_bin=${1:?usage: systemd-row-2.sh BIN_DIR}
fx_begin systemd-row-2 # its EXIT trap (Xvfb, openbox) runs first in um_start's
overlay=blocker-overlay.service

fail() {
    echo "FAIL: $*"
    um_systemctl status --no-pager -n 0 blockerd.service "$overlay" >&2
    echo "----- blockerd and blocker-overlay, their last lines:" >&2
    um_journal -q -o short-precise SYSLOG_IDENTIFIER=blockerd + SYSLOG_IDENTIFIER=blocker-overlay | tail -n 30 >&2
    fx_show_logs "$fx_dir"
    exit 1
}

um_start
bin=$UM_HOME/.local/bin
um_install .local/bin "$src_bin/blockerd" "$src_bin/blockerctl" "$src_bin/blocker-overlay" || fail "cannot install the programs"
"$here/scripts/render-units.sh" "$bin" /usr/share/doc/blocker "$UM_UNIT_DIR" blockerd.service "$overlay" || fail "render-units.sh"
chown "$UM_UID:$UM_GID" "$UM_UNIT_DIR/blockerd.service" "$UM_UNIT_DIR/$overlay"
# The metered app is an xterm, known by its class; a fresh ledger has nothing to spend.
printf '%s\n' '[daemon]' 'probe = "x11"' 'poll-interval = "500ms"' '[earn]' 'pushups = 0.05' \
    '[[group]]' 'name = "social"' 'apps = ["xterm"]' | um_write .config/blocker/blocker.toml
ctl() { um_run env NO_COLOR=1 "$bin/blockerctl" "$@"; }
# Marks in the journal are wall clock µs: what is logged after one is what a step caused.
mark() { date +%s%6N; }
# after MARK [MATCHES…] — the entries logged after MARK, as JSON lines.
after() {
    local since=$1 ; shift
    um_journal -q -o json "$@" | python3 -c 'import json, sys
for line in sys.stdin:
    if int(json.loads(line)["__REALTIME_TIMESTAMP"]) > int(sys.argv[1]): print(line, end="")' "$since"
}
# texts MARK [MATCHES…] — their messages.
texts() { after "$@" | python3 -c 'import json, sys
for line in sys.stdin: print(json.loads(line).get("MESSAGE", ""))'; }
# logged MARK PATTERN [MATCHES…] — the messages after MARK that PATTERN
# matches (grep), waited for (5 s): journald takes each source in its turn.
logged() {
    local since=$1 pattern=$2 out deadline=$((SECONDS + 5))
    shift 2
    until out=$(texts "$since" "$@" | grep -- "$pattern"); do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
    printf '%s\n' "$out"
}
# field NAME… < JSON lines — the named fields of the first entry, one a line.
field() { python3 -c 'import json, sys; e = json.loads(sys.stdin.readline()); print("\n".join(e.get(n, "") for n in sys.argv[1:]))' "$@"; }
# event MARK EVENT — blockerd's first EVENT after MARK, waited for (10 s).
event() {
    local out deadline=$((SECONDS + 10))
    until out=$(after "$1" SYSLOG_IDENTIFIER=blockerd BLOCKER_EVENT="$2") && [ -n "$out" ]; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
    head -n 1 <<<"$out"
}
# drawn MARK — the wall ms at which blocker-overlay drew its cover over the
# xterm after MARK, waited for (10 s). Its lines are told by SYSLOG_IDENTIFIER:
# on a hybrid cgroup tree journald may file a restarted unit's first output
# under the manager's init.scope.
drawn() {
    local out deadline=$((SECONDS + 10))
    until out=$(after "$1" SYSLOG_IDENTIFIER=blocker-overlay) && out=$(grep -m1 'shown over XTerm' <<<"$out"); do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
    echo $(($(field __REALTIME_TIMESTAMP <<<"$out") / 1000))
}

# steady SINCE_MS WHAT — the cover drawn at SINCE_MS stays up (1 s): no
# shield-down since. (Until the x11 probe read a reused window id again, a
# restarted overlay was taken for the killed one, no cover, and the shield
# flapped down and up every few ms.)
steady() {
    local downs
    sleep 1
    downs=$(after "$(($1 * 1000))" SYSLOG_IDENTIFIER=blockerd BLOCKER_EVENT=shield-down | wc -l)
    [ "$downs" -eq 0 ] || fail "$2: the shield went down $downs times within 1 s of the cover coming back"
}
# charged WHAT FROM_MS TO_MS CHARGED_MS AT_LEAST — a cover-back's stretch was
# charged (the app could be used), at least AT_LEAST ms and not more than the
# stretch. (Not always all of it: an interval a sample failed to see is blind
# time, which is not charged here.)
charged() {
    if [ -z "$4" ] || [ "$4" -lt "$5" ] || [ "$4" -gt $(($3 - $2 + 50)) ]; then
        fail "$1: ${4:-no} ms charged of an uncovered stretch of $(($3 - $2)) ms"
    fi
}

# --- the desktop ---------------------------------------------------------------
read -r display xvfb_pid < <(fx_xvfb "$fx_dir") || fail "Xvfb did not start"
fx_track "$xvfb_pid"
export DISPLAY=:$display
wm_pid=$(fx_openbox "$fx_dir") || fail "openbox did not start"
fx_track "$wm_pid"
# What a graphical session's start-up does (xinitrc, a display manager's
# session script): the user manager learns DISPLAY, and the units it starts get it.
um_run env DISPLAY="$DISPLAY" systemctl --user import-environment DISPLAY || fail "import-environment DISPLAY"
um_systemctl daemon-reload || fail "daemon-reload"
um_systemctl start blockerd.service "$overlay" || fail "systemctl --user start blockerd $overlay"
um_wait_active blockerd.service 10 || fail "blockerd did not start"
um_wait_active "$overlay" 10 || fail "$overlay did not start"
started=$SECONDS
m=$(mark)
um_run env DISPLAY="$DISPLAY" xterm -e sleep 600 >/dev/null 2>&1 &
app=$(fx_x_window xterm) || fail "the xterm did not map"
fx_x_activate "$app" || fail "openbox did not activate the xterm"
event "$m" shield-up >/dev/null || fail "no shield over the xterm: $(ctl status 2>&1)"
drawn "$m" >/dev/null || fail "blocker-overlay drew no cover"
# Past blockerd's first 3 s, in which it waits for a cover client that may not have found it yet.
while [ $((SECONDS - started)) -lt 4 ]; do sleep 0.2; done

# --- (a) systemctl --user stop ----------------------------------------------
# The manager's debug log names the sender of each call it gets.
um_systemctl log-level debug || fail "log-level debug"
restarts=$(um_show "$overlay" NRestarts)
m=$(mark)
# blockerd may ask for the unit while the stop job still runs (the overlay
# left the bus before it exited): its start job replaces the stop job, and
# systemctl says the stop was canceled. Either way the user's stop is undone.
if said=$(um_systemctl stop "$overlay" 2>&1); then
    said="stopped"
else
    grep -q "^Job for $overlay canceled" <<<"$said" || fail "systemctl --user stop $overlay: $said"
    said="its stop job canceled by blockerd's start job"
fi
event "$m" cover-missing >/dev/null || fail "(a) blockerd did not say that no cover is drawn"
back=$(event "$m" cover-back) || fail "(a) no cover-back: $(um_show "$overlay" ActiveState)"
shown=$(drawn "$m") || fail "(a) the cover was not drawn again"
um_systemctl log-level info
steady "$shown" "(a)"
um_wait_active "$overlay" 1 || fail "(a) $overlay is not active after the cover came back"
[ "$(um_show "$overlay" NRestarts)" = "$restarts" ] || fail "(a) systemd restarted the unit itself after a stop"
# Who started it: the StartUnit call's sender, by its bus connection's process.
starts=$(logged "$m" "member=StartUnit" _PID="$UM_MANAGER_PID") || fail "(a) the user manager got no StartUnit call"
sender=$(sed -n 's/.* sender=\(:[0-9.]*\) .*member=StartUnit.*/\1/p' <<<"$starts" | sort -u)
[ "$(wc -w <<<"$sender")" -eq 1 ] || fail "(a) not one StartUnit caller: '$starts'"
caller=$(um_run busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
    GetConnectionUnixProcessID s "$sender" | awk '{print $2}')
blockerd=$(um_show blockerd.service MainPID)
[ "$caller" = "$blockerd" ] || fail "(a) StartUnit came from $sender (pid $caller), not blockerd (pid $blockerd)"
logged "$m" "Asked the user manager to start $overlay" SYSLOG_IDENTIFIER=blockerd >/dev/null ||
    fail "(a) blockerd did not say it asked for $overlay"
read -r a_from a_to a_charged < <(field BLOCKER_FROM_MS BLOCKER_TO_MS BLOCKER_CHARGED_MS <<<"$back" | paste -sd' ')
charged "(a)" "$a_from" "$a_to" "$a_charged" 0
a_line="systemctl --user stop $overlay ($said) is no exit systemd restarts from (restart counter $restarts); blockerd said cover-missing and called StartUnit (the manager's debug log: from $sender, blockerd's pid $blockerd); the cover was drawn again $((shown - m / 1000)) ms after the stop, $((a_to - a_from)) ms uncovered, $a_charged ms charged"

# --- (b) kill -TERM ---------------------------------------------------------
m=$(mark)
kill -TERM "$(um_show "$overlay" MainPID)" || fail "(b) kill -TERM $overlay"
event "$m" cover-missing >/dev/null || fail "(b) blockerd did not say that no cover is drawn"
back=$(event "$m" cover-back) || fail "(b) no cover-back: $(um_show "$overlay" ActiveState)"
shown=$(drawn "$m") || fail "(b) the cover was not drawn again"
steady "$shown" "(b)"
[ "$(um_show "$overlay" NRestarts)" -eq $((restarts + 1)) ] || fail "(b) Restart=always did not restart $overlay (NRestarts $(um_show "$overlay" NRestarts))"
logged "$m" "Scheduled restart job" USER_UNIT="$overlay" >/dev/null ||
    fail "(b) no restart job of $overlay in the journal"
blockerd_said=$(texts "$m" SYSLOG_IDENTIFIER=blockerd)
asked=no
grep -q "Asked the user manager" <<<"$blockerd_said" && asked=yes
read -r b_from b_to b_charged < <(field BLOCKER_FROM_MS BLOCKER_TO_MS BLOCKER_CHARGED_MS <<<"$back" | paste -sd' ')
# RestartSec=1s: a second at least without a cover, most of it charged.
charged "(b)" "$b_from" "$b_to" "$b_charged" 500
b_line="kill -TERM: Restart=always restarted it (restart counter $((restarts + 1)); blockerd asked too: $asked), drawn again $((shown - m / 1000)) ms after the kill, $((b_to - b_from)) ms uncovered, $b_charged ms charged"

history=$(ctl history --days 1) || fail "blockerctl history"
[ "$(grep -c "! uncovered .*charged" <<<"$history")" -eq 2 ] || fail "history does not show both uncovered stretches: $history"
doctor=$(ctl doctor 2>&1) || true # exit 1 for any FAIL line: only its integrity line counts here
grep -q "uncovered" <<<"$doctor" || fail "doctor does not show the uncovered stretches: $(grep -i integrity <<<"$doctor")"
echo "row 2 (systemd --user): closed: $a_line; $b_line; recorded: cover-missing/cover-back in the journal, doctor, history ('$(grep -o '! uncovered.*' <<<"$history" | tail -n 1)')"
