#!/usr/bin/env bash
# itest-pause.sh — a pause before the pull, the opens cap and the emergency
# pass (issue 23), on real servers: Xvfb + openbox, a private session bus,
# blockerd with the x11 probe, blocker-overlay, and two xterms (the metered
# blocker-meter and blocker-free). blocker.toml: [pause] 3 s after 2 s away,
# asking "why now?"; opens-per-day = 3; [pass] one a week of 1 minute; strict
# mode on.
#
#   1. the metered xterm comes to the front: the pause cover shows (reason
#      pause, its countdown), nothing is charged during it (docs/cover-pause.png);
#   2. "Not now" (AnswerPause, what the cover's button calls): the window is
#      hidden (iconified by the window manager), the shield is down;
#   3. away and back: a new open, a new pause; after the countdown the reason
#      typed on the cover + Enter opens it, and it is charged from then;
#   4. a third open, opened: the fourth is over opens-per-day: covered
#      (opens-cap) whatever the balance;
#   5. `blockerctl pass` in strict mode lifts it for exactly its minute, then
#      the cap covers again; a second pass in the week is refused, saying when
#      the next comes;
#   6. history shows the day's opens, pauses, not-now, capped, the pass and the
#      reason, the report counts them; a kill -9 and a restart change none.
# itest-pause-sway.sh runs the pause itself on sway.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init pause
started=$(fx_now_ms)
fx_need Xvfb openbox xterm xdotool xprop import gdbus dbus-daemon python3

oe_start_x11
fx_start_bus
# The opens cap lasts until local midnight: make that half a day away.
fx_zone_at_noon

xterm_of() { # CLASS
    xterm -class "$1" -bg magenta -geometry 120x40+0+0 >"$fx_dir/xterm-$1.log" 2>&1 &
    fx_track $!
    fx_wait 10 eval "xdotool search --onlyvisible --class $1 >/dev/null 2>&1" || fail "the $1 xterm did not map"
    xdotool search --onlyvisible --class "$1" | head -n 1
}
meter=$(xterm_of blocker-meter)
free=$(xterm_of blocker-free)
# The metered xterm may be iconified ("Not now"): map it again, then activate.
to_front() { xdotool windowmap --sync "$1" 2>/dev/null || true; xdotool windowactivate --sync "$1"; }
to_front "$free"

oe_write_config 0.05
cat >>"$fx_dir/blocker.toml" <<'TOML'
opens-per-day = 3

[pause]
seconds = 3
after = "2s"
ask-reason = true

[pass]
per-week = 1
length = "1m"

[strict]
delay = "1h"
TOML
oe_start_blockerd x11
oe_start_overlay
oe_ctl earn 40 pushups >/dev/null || fail "blockerctl earn failed"   # 2 minutes

shield() { oe_shield_reason; }
balance() { oe_status 's["balance_ms"]'; }
cover_shown() { xdotool search --onlyvisible --classname blocker-overlay >/dev/null 2>&1; }
# Each open: away from the group for longer than `after`, then back.
reopen() { to_front "$free"; sleep 2.5; to_front "$meter"; }

# 1. The pause cover; nothing charged during it.
to_front "$meter"
fx_wait 3 eval '[ "$(shield)" = pause ]' || fail "no pause when the metered xterm came to the front: $(shield)"
fx_wait 3 cover_shown || fail "the cover did not show the pause"
before=$(balance)
sleep 1.5
mkdir -p docs
import -window root -define png:exclude-chunks=date,time "$fx_dir/pause.png"
cp "$fx_dir/pause.png" docs/cover-pause.png
[ "$(balance)" = "$before" ] || fail "the pause was charged: balance $before → $(balance)"
fx_note "1. pause cover up, nothing charged during it"

# 2. "Not now": hidden, shield down.
oe_answer_pause false >/dev/null
fx_wait 3 eval '[ "$(shield)" = down ]' || fail "the shield stayed up after Not now: $(shield)"
fx_wait 3 eval 'xprop -id "$meter" WM_STATE | grep -q "Iconic"' \
    || fail "Not now did not hide the window: $(xprop -id "$meter" WM_STATE)"
fx_note "2. Not now: the window iconified, the shield down"

# 3. A new open, a new pause; the reason + Enter after the countdown opens it; charged from then.
reopen
fx_wait 3 eval '[ "$(shield)" = pause ]' || fail "no pause on the second open: $(shield)"
sleep 3.2
xdotool type --delay 20 "bored"
xdotool key Return
fx_wait 3 eval '[ "$(shield)" = down ]' || fail "the reason + Enter did not open it: $(shield)"
opened=$(balance)
sleep 3
[ "$(balance)" -lt "$opened" ] || fail "opened, but not charged: balance $opened → $(balance)"
fx_note "3. the second open: paused, opened with a reason, charged from then"

# 4. The third open (opened through the bus), the fourth over the cap.
reopen
fx_wait 3 eval '[ "$(shield)" = pause ]' || fail "no pause on the third open: $(shield)"
sleep 3.2
oe_answer_pause true >/dev/null
fx_wait 3 eval '[ "$(shield)" = down ]' || fail "the third open did not open: $(shield)"
reopen
fx_wait 3 eval '[ "$(shield)" = opens-cap ]' || fail "the fourth open is not capped: $(shield)"
fx_wait 3 cover_shown || fail "the cover did not show the opens cap"
fx_note "4. the fourth open of the day: covered (opens-cap)"

# 5. A pass in strict mode: lifted for exactly its minute; a second one refused.
oe_ctl pass meter >"$fx_dir/pass.out" || fail "blockerctl pass failed: $(cat "$fx_dir/pass.out")"
passed=$(fx_now_ms)
fx_wait 3 eval '[ "$(shield)" = down ]' || fail "the pass did not lift the cap: $(shield)"
refusal=$(oe_ctl pass meter 2>&1) && fail "a second pass in the week was not refused"
grep -q "no pass left this week" <<<"$refusal" || fail "the refusal does not say why: $refusal"
grep -Eq "the next from (Mon|Tue|Wed|Thu|Fri|Sat|Sun) " <<<"$refusal" || fail "the refusal does not say when: $refusal"
sleep 55
[ "$(shield)" = down ] || fail "the pass ended early: $(shield) $(( ($(fx_now_ms) - passed) / 1000 )) s after it"
fx_wait 8 eval '[ "$(shield)" = opens-cap ]' || fail "the cap did not come back after the pass's minute: $(shield)"
back=$(( $(fx_now_ms) - passed ))
[ "$back" -ge 59000 ] && [ "$back" -le 63000 ] || fail "the pass lasted $back ms, not its minute"
fx_note "5. the pass: lifted for $back ms in strict mode; the second refused: $refusal"

# 6. history has it all, the same after a kill -9 and a restart.
counts() { oe_ctl history --days 1 --json | fx_json '[(r["group"], r["opens"], r["paused"], r["not_now"], r["capped"], r["passes"], r["reasons"]) for d in s for r in d["opens"]]'; }
expected="[('meter', 4, 3, 1, 1, 1, ['bored'])]"
[ "$(counts)" = "$expected" ] || fail "history's opens: $(counts), not $expected"
summary=$(oe_ctl report --output "$fx_dir/report.png") || fail "blockerctl report failed: $summary"
grep -q ", 4 opens (1 of 3 pauses given up), 1 pass" <<<"$summary" || fail "the report does not count them: $summary"
kill -9 "$oe_blockerd_pid"
oe_start_blockerd x11
[ "$(counts)" = "$expected" ] || fail "after a kill -9 and a restart, history's opens: $(counts)"
fx_note "6. history: $(counts), the report: ${summary##*used}; unchanged by a kill -9"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s (screenshot: docs/cover-pause.png)"
