#!/usr/bin/env bash
# Issue 20, rows 6 and 7, under a real systemd --user and journald
# (scripts/lib/user-manager.sh), with blockerd.service as make install renders it.
#   scripts/lib/integrity/systemd-rows-6-7.sh BIN_DIR
# Run by rows-4-7.sh; prints one "RESULT ok row N: …" or "RESULT fail row N: …"
# line per row on stdout, its narration on stderr. Everything it starts is
# stopped by the harness's EXIT trap, pass or fail.
set -uo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../user-manager.sh
source "$here/scripts/lib/user-manager.sh"
um_enter "$@"
bin=$1
row=6
result() { echo "RESULT $*"; }
fail() { result "fail row $row: $*"; um_journal -n 20 >&2 2>/dev/null; exit 1; }

um_start
um_install .local/bin "$bin/blockerd" "$bin/blockerctl" || fail "cannot install the programs"
units=$(mktemp -d)
"$here/scripts/render-units.sh" "$UM_HOME/.local/bin" /usr/share/doc/blocker "$units" blockerd.service || fail "render-units.sh"
um_install .config/systemd/user "$units/blockerd.service" || fail "cannot install blockerd.service"
rm -rf "$units"
ctl() { um_run env NO_COLOR=1 "$UM_HOME/.local/bin/blockerctl" "$@"; }
status_field() { ctl status --json | python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
pid() { um_show blockerd.service MainPID; }
restart() {
    local old
    old=$(pid)
    um_systemctl restart blockerd.service 2>/dev/null
    um_wait_active blockerd.service 10 && [ "$(pid)" != "$old" ]
}
config() { # [STRICT_SECTION]
    printf '%s\n' '[daemon]' 'probe = "command"' 'poll-interval = "1s"' \
        "probe-command = [\"/bin/cat\", \"$UM_HOME/front.json\"]" '[earn]' 'pushups = 0.5' "${1:-}" \
        '[[group]]' 'name = "social"' 'apps = ["discord"]' 'daily-limit = "2h"' | um_write .config/blocker/blocker.toml
}
echo '{"app":"discord","title":"chat","pid":1}' | um_write front.json
config '[strict]
delay = "1h"'
um_systemctl daemon-reload || fail "daemon-reload"
um_systemctl set-environment DISPLAY=:0 || fail "set-environment DISPLAY=:0"
um_systemctl start blockerd.service || fail "start blockerd.service"
um_wait_active blockerd.service 10 || fail "blockerd.service never became active"
ctl earn 40 >/dev/null || fail "blockerctl earn 40"
ledger=$UM_HOME/.local/state/blocker/blocker.db
[ -f "$ledger" ] || fail "no ledger at $ledger: $(tr "\0" " " <"/proc/$(pid)/cmdline"); $(find "$UM_HOME" -name blocker.db 2>&1)"

# --- row 6: the environment a user can set for the next start -----------------
um_systemctl set-environment TZ=Etc/GMT-14 "XDG_STATE_HOME=$UM_HOME/fresh" "LD_PRELOAD=$UM_HOME/clock-shim.so" DISPLAY= ||
    fail "set-environment"
restart || fail "blockerd did not come back after the restart"
environ=$(tr '\0' '\n' <"/proc/$(pid)/environ")
grep -q '^TZ=\|^LD_PRELOAD=' <<<"$environ" && fail "TZ or LD_PRELOAD reached blockerd: $(grep '^TZ=\|^LD_PRELOAD=' <<<"$environ")"
[ ! -e "$UM_HOME/fresh/blocker" ] || fail "XDG_STATE_HOME moved the state directory to $UM_HOME/fresh/blocker"
balance=$(status_field '["balance_ms"]') || fail "status"
[ "$balance" -gt 1000000 ] || fail "the balance after the restart is $balance ms: a fresh ledger?"
zone=$(sqlite3 "$ledger" "SELECT text FROM last_environment" | sed -n 's/^zone=//p')
[ -n "$zone" ] && [ "$zone" != Etc/GMT-14 ] || fail "blockerd counts days in '$zone'"
entry=$(um_wait_journal 5 _SYSTEMD_USER_UNIT=blockerd.service BLOCKER_EVENT=environment _PID="$(pid)") ||
    fail "no environment event for DISPLAY="
changes=$(python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["BLOCKER_CHANGES"])' <<<"$entry")
[ "$changes" = "DISPLAY: :0 → " ] || fail "the environment event names other changes than DISPLAY: '$changes'"
history=$(ctl history --days 1) || fail "history"
grep -q "! environment changed .*DISPLAY: :0 → " <<<"$history" || fail "history lacks the environment change: $history"
um_systemctl unset-environment TZ XDG_STATE_HOME LD_PRELOAD
result "ok row 6: closed: TZ=Etc/GMT-14, XDG_STATE_HOME=~/fresh and LD_PRELOAD= set with systemctl --user set-environment do not reach blockerd after a restart (UnsetEnvironment=, --state-dir %h/.local/state/blocker): days still in $zone, the same ledger ($balance ms); recorded: DISPLAY= (environment event 'DISPLAY: :0 → ', history)"

# --- row 7: strict mode, a broken blocker.toml, a restart ---------------------
row=7
printf '[strict]\ndelay = \n' | um_write .config/blocker/blocker.toml
restart || fail "a broken config in strict mode stopped blockerd (exit $(um_show blockerd.service ExecMainStatus))"
um_wait_journal 5 _SYSTEMD_USER_UNIT=blockerd.service BLOCKER_EVENT=config-unreadable _PID="$(pid)" >/dev/null ||
    fail "no config-unreadable event"
problem=$(status_field '.get("config_problem", "")') || fail "status"
grep -q "blocker.toml does not load (.*blocker.toml:2:.*); strict mode keeps the version in force" <<<"$problem" ||
    fail "status does not say what runs: '$problem'"
sleep 2
[ "$(status_field '["spending"]')" = True ] || fail "discord is not spent: the config in force is not enforced"
doctor=$(ctl doctor 2>&1)
grep -q "WARN.*strict.*running on the config in force from the ledger" <<<"$doctor" || fail "doctor does not say it: $doctor"
config '[strict]
delay = "1h"'
ctl reload >/dev/null || fail "reload of the fixed config"
[ -z "$(status_field '.get("config_problem", "")')" ] || fail "the problem outlived the fix"
history=$(ctl history --days 1) || fail "history"
line=$(grep "! config unreadable" <<<"$history") || fail "history lacks the config note: $history"
result "ok row 7: closed: in strict mode a broken blocker.toml and a restart leave blockerd running on the ledger's config in force (spending, daily limits), said by status, doctor and a config-unreadable event; recorded: history ('$(sed 's/^ *//' <<<"$line" | cut -c1-60)…')"
