#!/usr/bin/env bash
# blockerctl end to end: a real dbus-daemon, the real blockerd (command probe),
# every command in human and --json form, bad input that must change nothing,
# and what happens with no daemon. Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-blockerctl
fx_programs blockerd blockerctl
dir=$fx_dir daemon_pid=
ctl() { "$bin/blockerctl" "$@"; }
fx_private_session
fx_config "$dir/.config/blocker/blocker.toml" "$dir/front.json"
sed -i 's/^pushups = 0.5$/pushups = 0.5\nsquats = 1/' "$dir/.config/blocker/blocker.toml"
cat >>"$dir/.config/blocker/blocker.toml" <<TOML
[[group]]
name = "tools"
apps = ["notes"]
metered = false
TOML
echo null >"$dir/front.json"
fx_start_blockerd "$bin"
daemon_pid=$fx_daemon_pid

# status --json: exactly the contract's keys and types.
ctl status --json >"$dir/status.json" || fail "status --json"
python3 - "$dir/status.json" <<'PY' || fail "status --json does not match the contract: $(cat "$dir/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert set(s) == {"balance_ms", "metered", "spending", "locked", "foreground", "shield", "today", "exercises", "probe"}, s.keys()
assert s["balance_ms"] == 0 and s["metered"] is False and s["spending"] is False and s["locked"] is False and s["foreground"] is None
assert set(s["shield"]) == {"active", "reason", "app", "group", "until_ms", "site"} and s["shield"]["active"] is False
assert s["shield"]["group"] is None and s["shield"]["reason"] is None and s["shield"]["site"] is None
assert s["exercises"] == sorted(s["exercises"], key=lambda e: e["name"]) and s["exercises"], s["exercises"]
assert all(set(e) == {"name", "ms_per_rep"} and e["ms_per_rep"] > 0 for e in s["exercises"]), s["exercises"]
assert set(s["today"]) == {"used_ms", "earned_ms"}
assert s["probe"] == {"name": "command", "ok": True, "error": None}, s["probe"]
PY
ok "status --json matches the contract"

out=$(ctl earn 4 pushups) || fail "earn 4 pushups"
grep -q "2m 00s" <<<"$out" || fail "earn output lacks what was earned: $out"
balance() { ctl status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["balance_ms"])'; }
[ "$(balance)" = 120000 ] || fail "balance after earning is $(balance)"
ok "earn 4 pushups → 2m 00s: $out"

# Bad input: a clear error, the right exit status, and the balance untouched.
for reps in -5 0 1.5 abc 1000000000; do
    err=$(ctl earn "$reps" pushups 2>&1 >/dev/null); rc=$?
    [ "$rc" = 2 ] || fail "earn $reps exited $rc, not 2"
    grep -q "^blockerctl: error: " <<<"$err" || fail "earn $reps: no 'blockerctl: error:' line: $err"
done
err=$(ctl earn 5 burpees 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "pushups" <<<"$err" || fail "unknown exercise: rc $rc, $err"
err=$(ctl earn 5 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "squats" <<<"$err" || fail "earn without an exercise when two exist: rc $rc, $err"
for d in 1h3 -5m 0m 8d; do
    ctl block social --for "$d" >/dev/null 2>&1; rc=$?
    [ "$rc" = 2 ] || fail "block --for $d exited $rc, not 2"
done
err=$(ctl block nothere --for 1h 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "social" <<<"$err" || fail "unknown block target: rc $rc, $err"
ctl frobnicate >/dev/null 2>&1; [ $? = 2 ] || fail "an unknown command is not exit 2"
[ "$(balance)" = 120000 ] || fail "bad input changed the balance to $(balance)"
ok "bad REPS, exercises, durations, targets and commands: errors, exit 2/1, balance untouched"

# A timed block covers the app whatever the balance; unblock lifts only that.
echo '{"app":"discord","title":"chat","pid":1}' >"$dir/front.json"
out=$(ctl block social --for 1h) || fail "block social --for 1h"
grep -q "until" <<<"$out" || fail "block output lacks 'until': $out"
sleep 1.2
ctl status --json | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["shield"]["active"] and s["shield"]["reason"] == "timed-block" and s["shield"]["app"] == "discord", s
assert s["shield"]["group"] == "social", s
assert s["foreground"]["app"] == "discord" and s["foreground"]["groups"] == ["social"] and s["metered"], s
assert s["shield"]["until_ms"] > 0' || fail "status --json after block: $(ctl status --json)"
human=$(ctl status) || fail "status"
grep -q "discord" <<<"$human" && grep -qi "timed.block" <<<"$human" || fail "human status lacks the shield: $human"
ctl unblock social >/dev/null || fail "unblock social"
ctl status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); assert not s["shield"]["active"], s' ||
    fail "unblock did not lift the timed block"
ok "block → timed-block shield on the group with until; unblock lifts it"

# Spending shows up in history.
sleep 2.2
echo null >"$dir/front.json"
sleep 1.1
ctl history --json >"$dir/history.json" || fail "history --json"
python3 - "$dir/history.json" <<'PY' || fail "history --json: $(cat "$dir/history.json")"
import json, sys
days = json.load(open(sys.argv[1]))
today = days[-1]
assert today["earned_ms"] == 120000, today
assert 1000 <= today["used_ms"] <= 5000, today
assert 1000 <= today["groups"]["social"] <= 5000, today
PY
# Captured first: `grep -q` stops at the first match, and under pipefail the
# writer's SIGPIPE would fail the pipeline.
drawn=$(ctl history --days 3) || fail "history --days 3"
grep -q "█\|▏\|▎\|▍\|▌\|▋\|▊\|▉" <<<"$drawn" || fail "history draws no bars: $drawn"
ok "history: earned and used per day and group, with bars"

# Reload: a bad config is refused with file:line:column and the old one stays.
ctl reload >/dev/null || fail "reload"
cp "$dir/.config/blocker/blocker.toml" "$dir/good.toml"
printf '[daemon]\nprobe = \n' >"$dir/.config/blocker/blocker.toml"
err=$(ctl reload 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "blocker.toml:2:" <<<"$err" || fail "reload of a bad config: rc $rc, $err"
ctl earn 1 squats >/dev/null || fail "the old config did not stay in force"
cp "$dir/good.toml" "$dir/.config/blocker/blocker.toml"
ok "reload with a bad config: exit 1 with file:line:column; the old config stays"

ctl config check >/dev/null || fail "config check of the good config"
ctl config check "$dir/front.json" >/dev/null 2>&1 && fail "config check accepted a non-TOML file"
ok "config check"

# The earning cap: beyond max-per-day or min-gap, earn exits 1 with when it
# becomes possible again, and nothing is credited.
sed -i 's/^squats = 1$/squats = 1\nmax-per-day = "1h"\nmin-gap = "1h"/' "$dir/.config/blocker/blocker.toml"
ctl reload >/dev/null || fail "reload with the earning cap"
before=$(balance)
err=$(ctl earn 1 squats 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "too soon: \[earn\] min-gap is 1h 00m between earnings; earn again in " <<<"$err" \
    || fail "earn within min-gap: rc $rc, $err"
[ "$(balance)" = "$before" ] || fail "a refused earning credited something: $(balance) after $before"
ok "earn within min-gap: exit 1, nothing credited ($err)"
sed -i 's/^min-gap = "1h"$//' "$dir/.config/blocker/blocker.toml"
ctl reload >/dev/null || fail "reload without min-gap"
err=$(ctl earn 120 pushups 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "over the daily cap: \[earn\] max-per-day is 1h 00m; only .* more may be earned today" <<<"$err" \
    || fail "earn over max-per-day: rc $rc, $err"
[ "$(balance)" = "$before" ] || fail "a refused earning credited something: $(balance) after $before"
ok "earn over max-per-day: exit 1, nothing credited ($err)"
cp "$dir/good.toml" "$dir/.config/blocker/blocker.toml"

# No daemon: explain and exit 1.
kill -TERM "$daemon_pid"; wait "$daemon_pid"; daemon_pid=
err=$(ctl status 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "status with no daemon exited $rc"
grep -q "systemctl --user start blockerd" <<<"$err" || fail "no-daemon error lacks the fix: $err"
ok "no daemon: exit 1 with the fix ($err)"
