#!/usr/bin/env bash
# Strict mode and the earning cap end to end: a real dbus-daemon, the real
# blockerd with an event-driven (stream) command probe, so nothing but the
# pending change's own wake-up makes it apply; a loosening that waits,
# survives kill -9 and applies at its instant; unblock and a shorter block
# refused; config cancel; a hand edit of the ledger with sqlite3 reported by
# doctor, blockerd running on; a broken file at a restart runs on the config in
# force from the ledger. Delays are a few seconds (strict mode allows 1s
# and up for exactly this). Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-strict
fx_programs blockerd blockerctl
dir=$fx_dir
ctl() { "$bin/blockerctl" "$@"; }
fx_private_session
config=$dir/.config/blocker/blocker.toml
mkdir -p "$(dirname "$config")"
echo null >"$dir/front.json"
# The stream probe: one line, then quiet. Its pid is noted so a kill -9 of
# blockerd (which leaves it behind) can be followed by stopping it.
cat >"$dir/stream.sh" <<SH
#!/bin/sh
echo \$\$ >>"$dir/stream.pids"
cat "$dir/front.json"
exec sleep 3600
SH
chmod +x "$dir/stream.sh"
write_config() {   # DELAY LIMIT
    cat >"$config" <<TOML
[daemon]
probe = "command"
probe-command = ["$dir/stream.sh"]
probe-command-mode = "stream"
[earn]
pushups = 0.5
[strict]
delay = "$1"
[[group]]
name = "social"
apps = ["discord"]
daily-limit = "$2"
TOML
}
stop_stream_children() {
    local pid
    for pid in $(cat "$dir/stream.pids" 2>/dev/null); do fx_alive "$pid" && kill -KILL "$pid" 2>/dev/null; done
    : >"$dir/stream.pids"
}
trap 'stop_stream_children; fx_cleanup' EXIT

write_config 8s 1h
fx_start_blockerd "$bin"

# unblock and a shorter block are refused, with the reason.
ctl block social --for 10m >/dev/null || fail "block social --for 10m"
err=$(ctl unblock social 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "strict mode (\[strict\] delay = 8s) refuses unblock" <<<"$err" || fail "unblock in strict mode: rc $rc, $err"
err=$(ctl block social --for 5m 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] && grep -q "strict mode refuses a shorter block: social is blocked until" <<<"$err" || fail "a shorter block: rc $rc, $err"
ctl block social --for 20m >/dev/null || fail "a longer block was refused"
ok "strict mode: unblock and a shorter block refused ($err)"

# A loosening waits; it is in the ledger, so a kill -9 does not lose it.
write_config 8s 2h
out=$(ctl reload) || fail "reload"
grep -q "^strict mode: 1 loosening change waits; the next applies " <<<"$out" || fail "reload did not say what waits: $out"
pending=$(ctl config pending) || fail "config pending"
grep -q '^  group "social".daily-limit: 1h 00m → 2h 00m$' <<<"$pending" || fail "config pending: $pending"
ctl status | grep -q "^strict    on (changes that loosen wait 8s); 1 pending, the next " || fail "status lacks the strict line: $(ctl status)"
grep -q "event=config-pending" "$dir/daemon.log" || fail "no config-pending event"
kill -KILL "$fx_daemon_pid"; wait "$fx_daemon_pid" 2>/dev/null
stop_stream_children
fx_start_blockerd "$bin"
pending=$(ctl config pending) || fail "config pending after kill -9"
grep -q '^  group "social".daily-limit: 1h 00m → 2h 00m$' <<<"$pending" || fail "the pending change did not survive kill -9: $pending"
ok "a loosening waits and survives kill -9: $(head -1 <<<"$pending")"

# It applies at its instant, though nothing else wakes blockerd: watch its log only.
applied=
for _ in $(seq 120); do
    grep -q "event=config-applied" "$dir/daemon.log" && { applied=1; break; }
    sleep 0.1
done
[ -n "$applied" ] || fail "the pending change did not apply within 12 s"
[ "$(ctl config pending)" = "no config changes are pending" ] || fail "still pending after it applied"
ok "applied at its instant: $(grep "event=config-applied" "$dir/daemon.log" | tail -1)"

# config cancel: what waits never applies; the file's next edit queues it again.
write_config 8s 3h
ctl reload >/dev/null || fail "reload"
out=$(ctl config cancel) || fail "config cancel"
[ "$out" = "cancelled 1 pending config change; the config in force stays" ] || fail "config cancel: $out"
[ "$(ctl config pending)" = "no config changes are pending" ] || fail "pending after cancel"
ok "config cancel: $out"

# A hand edit with sqlite3 while blockerd runs: doctor sees it at once; blockerd
# notes it at its next write and runs on (the earning is credited).
ledger=$dir/.local/state/blocker/blocker.db
sqlite3 "$ledger" "UPDATE account SET balance_ms = balance_ms + 3600000, earned_total_ms = earned_total_ms + 3600000" ||
    fail "sqlite3 could not edit the ledger"
doctor=$(ctl doctor 2>&1)
grep -q "edits .*the ledger was edited outside blocker on .* or later (after blocker's last write" <<<"$doctor" ||
    fail "doctor did not see the edit: $(grep -E 'edits|ledger' <<<"$doctor")"
ctl earn 2 pushups >/dev/null || fail "earn after the edit was refused"
doctor=$(ctl doctor 2>&1)
line=$(grep "edits " <<<"$doctor")
grep -q "the ledger was edited outside blocker on .* or later (blocker's write before it; blockerd noticed it " <<<"$line" ||
    fail "doctor after blockerd noticed: $line"
grep -q "was edited outside blocker since its last write" "$dir/daemon.log" || fail "blockerd did not log the edit"
ok "a sqlite3 edit: $line"

# A broken blocker.toml and a restart: blockerd runs on the config in force
# from the ledger and says so (it was exit 78, nothing enforced until fixed).
fx_stop "$fx_daemon_pid"
stop_stream_children
printf '[strict]\ndelay = \n' >"$config"
fx_start_blockerd "$bin"
fx_alive "$fx_daemon_pid" || fail "a broken config in strict mode stopped blockerd"
status=$(ctl status) || fail "status with a broken config"
grep -q "^config .*blocker.toml does not load (.*blocker.toml:2:.*); strict mode keeps the version in force" <<<"$status" ||
    fail "status does not say the file does not load: $status"
grep -q "^strict    on (changes that loosen wait 8s)" <<<"$status" || fail "strict mode is not in force: $status"
grep -q "event=config-unreadable" "$dir/daemon.log" || fail "no config-unreadable event"
write_config 8s 3h
ctl reload >/dev/null || fail "reload of the fixed config"
ctl status | grep -q "^config " && fail "status still has the config line after the fix"
ok "a broken file and a restart: blockerd runs on the ledger's config ($(grep "event=config-unreadable" "$dir/daemon.log" | cut -c1-100)…)"
