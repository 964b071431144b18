#!/usr/bin/env bash
# Self-test of scripts/lib/user-manager.sh: a real systemd --user and journald
# do what blockerd's units rely on — Type=notify, WatchdogSec=, Restart=,
# timers, journal fields — and everything is gone afterwards.
# Exit 0 = pass; on failure it says which check failed (and dumps the journal).
set -uo pipefail
# shellcheck source=lib/user-manager.sh
source "$(dirname "$0")/lib/user-manager.sh"
um_enter "$@"
fx_named itest-user-manager

started=$SECONDS
ok() { echo "itest-user-manager: ok ($((SECONDS - started))s): $*"; }

um_start
state=$(um_systemctl is-system-running)
[ "$state" = running ] || { um_systemctl --failed --no-pager; fail "manager is $state, not running"; }
ok "systemd --user running for $UM_USER ($UM_UID), XDG_RUNTIME_DIR=$UM_RUNTIME"

um_run busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId >/dev/null ||
    fail "no session bus at $UM_BUS"
ok "session bus answers"

# --- units ---------------------------------------------------------------
# Sources go to a scratch dir on the home's tmpfs (gone even if this run is
# killed), then into place with um_install; one unit with um_write.
src=$UM_HOME/.cache/itest-src
mkdir -p "$src"
cat >"$src/test-notify" <<'EOF'
#!/bin/bash
echo "test-notify started pid=$$"
# A native-protocol entry through sd_journal_sendv (logger --journald). Under
# `exec sleep` nobody reaps logger for a second, so journald can still read
# its cgroup and attribute it to this unit.
( printf 'MESSAGE=test-notify native entry\nHARNESS_FIELD=pid-%s\nPRIORITY=5\n' "$$" | logger --journald & exec sleep 1 ) &
# systemd-notify runs as a child, hence NotifyAccess=all in the unit.
systemd-notify --ready --status="pinging the watchdog"
while :; do
    systemd-notify WATCHDOG=1
    sleep 0.5
done
EOF
chmod 0755 "$src/test-notify"
cat >"$src/test-notify.service" <<'EOF'
[Unit]
Description=harness self-test: Type=notify with a watchdog

[Service]
Type=notify
NotifyAccess=all
ExecStart=%h/.local/bin/test-notify
WatchdogSec=2
Restart=always
RestartSec=1
LimitCORE=0
EOF
cat >"$src/test-tick.service" <<'EOF'
[Unit]
Description=harness self-test: what the timer starts

[Service]
Type=oneshot
ExecStart=/bin/echo tick
EOF
cat >"$src/test-tick.timer" <<'EOF'
[Unit]
Description=harness self-test: a repeating timer

[Timer]
OnActiveSec=1
OnUnitActiveSec=1
AccuracySec=10ms
EOF
um_install .local/bin "$src/test-notify" || fail "um_install of the script"
um_install .config/systemd/user "$src"/test-*.service "$src/test-tick.timer" || fail "um_install of the units"
# A unit with a typo: verify must flag it (warnings come with exit status 0).
um_write .config/systemd/user/test-typo.service <<'EOF'
[Service]
Type=notify
ExecStart=/bin/true
WatchdogSecs=2
EOF

um_verify "$UM_UNIT_DIR/test-notify.service" "$UM_UNIT_DIR/test-tick.service" "$UM_UNIT_DIR/test-tick.timer" ||
    fail "systemd-analyze --user verify rejected the good units"
um_verify "$UM_UNIT_DIR/test-typo.service" 2>/dev/null && fail "um_verify accepted a unit with an unknown key"
ok "um_verify passes good units and flags a typo"

um_systemctl daemon-reload || fail "daemon-reload"

# --- Type=notify, journal fields -----------------------------------------
um_systemctl start test-notify.service || fail "start test-notify.service"
um_wait_active test-notify.service 10 || fail "test-notify.service never became active"
pid=$(um_show test-notify.service MainPID)
[ "$(um_show test-notify.service WatchdogUSec)" = 2s ] || fail "WatchdogUSec is not 2s"
ok "Type=notify unit active, MainPID $pid"

um_wait_journal 5 _SYSTEMD_USER_UNIT=test-notify.service _UID="$UM_UID" \
    MESSAGE="test-notify started pid=$pid" >/dev/null ||
    fail "stdout line not in the journal with _SYSTEMD_USER_UNIT=test-notify.service"
um_wait_journal 5 _SYSTEMD_USER_UNIT=test-notify.service _TRANSPORT=journal \
    HARNESS_FIELD="pid-$pid" >/dev/null ||
    fail "native (sd_journal_sendv) entry not in the journal with _SYSTEMD_USER_UNIT=test-notify.service"
um_run journalctl --user -u test-notify.service -q --no-pager -o cat | grep -qx "test-notify started pid=$pid" ||
    fail "the test user's own journalctl --user -u does not see its unit's output"
ok "journal: stdout line and native entry carry _SYSTEMD_USER_UNIT; journalctl --user works"

# --- Restart= after a crash ----------------------------------------------
restarts=$(um_show test-notify.service NRestarts)
kill -9 "$pid"
restarted() { # OLD_PID N_RESTARTS
    local now
    now=$(um_show test-notify.service MainPID)
    [ "$now" != 0 ] && [ "$now" != "$1" ] &&
        [ "$(um_show test-notify.service NRestarts)" = "$2" ] &&
        [ "$(um_systemctl is-active test-notify.service)" = active ]
}
fx_wait 10 restarted "$pid" $((restarts + 1)) || fail "not restarted after kill -9"
pid=$(um_show test-notify.service MainPID)
ok "kill -9 → restarted as $pid, NRestarts $((restarts + 1))"

# --- the watchdog ----------------------------------------------------------
kill -STOP "$pid"
um_wait_journal 8 USER_UNIT=test-notify.service UNIT_RESULT=watchdog >/dev/null ||
    fail "no watchdog failure in the journal after kill -STOP"
fx_wait 10 restarted "$pid" $((restarts + 2)) || fail "not restarted after the watchdog fired"
ok "kill -STOP → watchdog (UNIT_RESULT=watchdog) → restarted as $(um_show test-notify.service MainPID)"

# --- a timer and its oneshot -----------------------------------------------
um_systemctl start test-tick.timer || fail "start test-tick.timer"
ticks() { um_journal -q -o cat USER_UNIT=test-tick.service JOB_TYPE=start JOB_RESULT=done | wc -l; }
ticks_at_least() { [ "$(ticks)" -ge "$1" ]; }
fx_wait 8 ticks_at_least 2 || fail "the timer started test-tick.service $(ticks) times, not twice"
um_wait_journal 5 _SYSTEMD_USER_UNIT=test-tick.service MESSAGE=tick >/dev/null ||
    fail "the oneshot's output is not in the journal with _SYSTEMD_USER_UNIT=test-tick.service"
ok "timer fired test-tick.service $(ticks) times"

# --- stopping, and the cleanup itself ---------------------------------------
um_systemctl stop test-tick.timer test-notify.service || fail "stop"
manager=$UM_MANAGER_PID journald=$UM_JOURNALD_PID slice=user.slice/user-$UM_UID.slice
um_stop
kill -0 "$manager" 2>/dev/null && fail "systemd --user still running after um_stop"
kill -0 "$journald" 2>/dev/null && fail "journald still running after um_stop"
for root in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
    [ -d "$root/$slice" ] && fail "cgroup $root/$slice left after um_stop"
done
for m in /run/systemd /run/log /run/user /var/log/journal "$UM_HOME"; do
    findmnt -n -t tmpfs "$m" >/dev/null && fail "$m still mounted after um_stop"
done
um_stop || fail "a second um_stop failed"
ok "um_stop left no process, cgroup or mount"
echo "itest-user-manager: passed in $((SECONDS - started))s"
