#!/usr/bin/env bash
# blockerctl report and history --csv end to end: a real dbus-daemon, the real
# blockerd (command probe, nothing in front so nothing is spent meanwhile) on
# a real SQLite ledger seeded with a known week and two runs of blockerd before
# the real ones. Checks the CSV row by row, the PNG's size and pixels at the
# bars' places, the SVG's bars (count, heights), each gap's mark under its day
# and the gaps in history's words, the integrity notes (two seeded, and the
# ledger-edited one blockerd writes for the seeding) in history --json, --csv
# and --csv --notes and as a badge over their days, bad input (exit status,
# message, nothing written) and that a failed report leaves the old file.
# Saves docs/report.png.
# Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-report
fx_programs blockerd blockerctl
dir=$fx_dir
ctl() { "$bin/blockerctl" "$@"; }
fx_private_session
fx_config "$dir/blocker.toml" "$dir/front.json"
fx_front "$dir/front.json"
daemon=(--config "$dir/blocker.toml" --state-dir "$dir/state")

# The ledger: blockerd makes it, then (stopped) it gets a known week. Minutes
# per day, D-7 (outside one week) to today: earned, spent, and use per group.
# And two runs before blockerd's own: one killed at D-3 22:50, the next
# started D-2 00:44 (a gap across midnight, unguarded from 00:14) and stopped
# 2 minutes before blockerd's first run here. And two integrity notes: D-4
# 09:00 to 09:40 a lock not honoured, D-1 14:00 to 14:25 uncovered. (The
# seeding is an edit blockerd sees at its start: it notes ledger-edited today.)
fx_start_blockerd "$bin" "${daemon[@]}"
fx_stop "$fx_daemon_pid"
day() { date -u +%F -d "-$1 days"; }
python3 - "$dir/state/blocker.db" "$(day 7)" "$(day 6)" "$(day 5)" "$(day 4)" "$(day 3)" "$(day 2)" "$(day 1)" "$(day 0)" <<'PY' || fail "cannot seed the ledger"
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
days = sys.argv[2:]
# (earned min, spent min, {group: min})
plan = [(50, 0, {}), (30, 20, {"social": 20, "video": 5}), (0, 0, {}),
        (60, 45, {"social": 40, 'work, "deep"': 10}), (15, 15, {"social": 15}),
        (45, 30, {"video": 30}), (20, 10, {"social": 10}), (10, 5, {"social": 5})]
m = 60_000
for d, (earned, spent, groups) in zip(days, plan):
    if earned: db.execute("INSERT INTO earnings (at_ms, day, exercise, reps, ms) VALUES (0, ?, 'pushups', 1, ?)", (d, earned * m))
    if spent: db.execute("INSERT INTO spent_by_day (day, spent_ms) VALUES (?, ?)", (d, spent * m))
    for g, minutes in groups.items():
        db.execute("INSERT INTO usage (day, group_name, app, ms) VALUES (?, ?, 'app', ?)", (d, g, minutes * m))
earned = sum(p[0] for p in plan) * m; spent = sum(p[1] for p in plan) * m
db.execute("UPDATE account SET balance_ms = ?, earned_total_ms = ?, spent_total_ms = ?", (earned - spent, earned, spent))
import datetime
def midnight(d): return int(datetime.datetime.strptime(d, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc).timestamp()) * 1000
(first_start,) = db.execute("SELECT min(started_ms) FROM runs").fetchone()
db.execute("UPDATE runs SET id = id + 10")
h = 60 * m
killed_at, restarted = midnight(days[4]) + 22 * h + 50 * m, midnight(days[5]) + 44 * m
runs = [(1, 4242, midnight(days[4]) + 8 * h, killed_at, killed_at, "killed with SIGKILL", None),
        (2, 4343, restarted, first_start - 2 * m, first_start - 2 * m, "stopped", restarted - 30 * m)]
db.executemany("INSERT INTO runs (id, pid, started_ms, last_tick_ms, ended_ms, end_reason, unguarded_since_ms) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)", runs)
notes = [("lock-not-honoured", midnight(days[3]) + 9 * h, midnight(days[3]) + 9 * h + 40 * m,
          "logind said the screen is locked, but the window in front changed (discord → firefox): not honoured, charged from 09:00"),
         ("uncovered", midnight(days[6]) + 14 * h, midnight(days[6]) + 14 * h + 25 * m,
          "a shield on social with no cover drawn: 25m 00s charged")]
db.executemany("INSERT INTO integrity_notes (kind, from_ms, to_ms, text) VALUES (?, ?, ?, ?)", notes)
db.commit()
json.dump({"days": days, "plan": plan}, open(sys.argv[1] + ".plan.json", "w"))
PY
fx_start_blockerd "$bin" "${daemon[@]}"
plan=$dir/state/blocker.db.plan.json

# history --csv: the header, then per day its totals (with its notes: how
# many, the time they concerned) and its groups by name, RFC 4180 quoting.
ctl history --csv >"$dir/history.csv" || fail "history --csv"
python3 - "$dir/history.csv" "$plan" <<'PY' || fail "history --csv: $(cat "$dir/history.csv")"
import json, sys, csv
plan = json.load(open(sys.argv[2]))
m = 60_000
notes = {3: (1, 40 * m), 6: (1, 25 * m), 7: (1, 0)}   # by index in plan: D-4, D-1, today (ledger-edited)
expected = [["day", "group", "used_ms", "earned_ms", "integrity_notes", "integrity_ms"]]
for index, (d, (earned, spent, groups)) in list(enumerate(zip(plan["days"], plan["plan"])))[1:]:
    count, ms = notes.get(index, (0, 0))
    expected.append([d, "", str(spent * m), str(earned * m), str(count), str(ms)])
    expected += [[d, g, str(minutes * m), "0", "0", "0"] for g, minutes in sorted(groups.items())]
text = open(sys.argv[1], newline="").read()
rows = list(csv.reader(text.splitlines()))
assert rows == expected, (rows, expected)
assert '"work, ""deep"""' in text, "the group with a comma and quotes is not quoted as RFC 4180 says"
PY
ok "history --csv: $(($(wc -l <"$dir/history.csv") - 1)) rows, days in order, quoting per RFC 4180"

# The notes: the seeded two and blockerd's own, under their days, with their
# span, in --json (each day's integrity list) and --csv --notes (a row each).
ctl history --json >"$dir/history.json" || fail "history --json"
ctl history --csv --notes >"$dir/notes.csv" || fail "history --csv --notes"
python3 - "$dir/history.json" "$dir/notes.csv" "$plan" <<'PY' || fail "the notes in history --json and --csv --notes: $(cat "$dir/history.json" "$dir/notes.csv")"
import csv, json, sys
days, rows, plan = json.load(open(sys.argv[1])), list(csv.reader(open(sys.argv[2], newline=""))), json.load(open(sys.argv[3]))
d = plan["days"]
by_day = {day["day"]: [(n["kind"], (n["end_ms"] - n["start_ms"]) // 60_000) for n in day["integrity"]] for day in days}
expected = {day: [] for day in d[1:]}
expected.update({d[3]: [("lock-not-honoured", 40)], d[6]: [("uncovered", 25)], d[7]: [("ledger-edited", 0)]})
assert by_day == expected, (by_day, expected)
assert all(list(day)[:5] == ["day", "earned_ms", "used_ms", "groups", "gaps"] for day in days), "a key renamed or moved"
assert rows[0] == ["day", "kind", "start_ms", "end_ms", "text"], rows[0]
assert [(r[0], r[1]) for r in rows[1:]] == [(d[3], "lock-not-honoured"), (d[6], "uncovered"), (d[7], "ledger-edited")], rows
assert rows[1][4].startswith("logind said the screen is locked, but the window in front changed"), rows[1]
PY
drawn=$(ctl history) || fail "history"
grep -q "^ *! uncovered 14:00 for 25m 00s: a shield on social" <<<"$drawn" || fail "history does not show the uncovered note: $drawn"
ok "integrity notes: 3 in history --json and --csv --notes, under their days, with the time they concerned"

# history's words for the gap across midnight: D-3's part had no graphical
# session (nothing said of unguarded time), D-2's had 30 minutes of one.
drawn=$(ctl history) || fail "history"
grep -qx " *off 1h 10m (killed with SIGKILL)" <<<"$drawn" \
    && grep -qx " *off 44m 00s (killed with SIGKILL; 30m 00s unguarded)" <<<"$drawn" \
    || fail "history does not show the seeded gap on both days: $drawn"
! grep -q " 0s unguarded" <<<"$drawn" || fail "history says 0s unguarded: $drawn"
ok "history: $(grep -c " off " <<<"$drawn") gap lines, the one across midnight on both days"

# The report, as PNG and SVG; render times from this run.
t0=$(date +%s%N)
png_line=$(ctl report --output "$dir/week.png") || fail "report --output week.png"
t1=$(date +%s%N)
svg_line=$(ctl report --output "$dir/week.svg") || fail "report --output week.svg"
t2=$(date +%s%N)
grep -q "busiest group social (1h 30m)" <<<"$png_line" && grep -q "balance 1h 45m" <<<"$png_line" \
    || fail "report does not name the busiest group and balance: $png_line"
grep -q ", off 1h 5[6-9]m in 3 gaps, 3 integrity notes (1h 05m)$" <<<"$png_line" \
    || fail "report does not total the three gaps and the three notes: $png_line"
ok "report: $png_line"
ok "report took $(((t1 - t0) / 1000000)) ms (PNG), $(((t2 - t1) / 1000000)) ms (SVG), blockerctl start and its D-Bus calls included"
[ -z "$(find "$dir" -maxdepth 1 -name '.week*')" ] || fail "report left temporary files: $(ls -a "$dir")"

convert "$dir/week.png" -depth 8 "rgb:$dir/week.rgb" || fail "ImageMagick cannot read the PNG"
python3 - "$dir/week.png" "$dir/week.rgb" "$dir/week.svg" "$plan" <<'PY' || fail "the PNG or SVG does not show the known week"
import json, re, struct, sys
png, rgb_path, svg_path, plan_path = sys.argv[1:]
plan = json.load(open(plan_path))
week = plan["plan"][1:]
raw = open(png, "rb").read()
assert raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", raw[16:24])
assert (width, height) == (1070, 496), (width, height)
rgb = open(rgb_path, "rb").read()
assert len(rgb) == width * height * 3
def pixel(x, y):
    i = (y * width + x) * 3
    return "#%02x%02x%02x" % tuple(rgb[i:i + 3])

svg = open(svg_path).read()
head = re.search(r'<svg[^>]*width="([\d.]+)(px)?"[^>]*height="([\d.]+)(px)?"', svg)
assert head and (float(head.group(1)), float(head.group(3))) == (width, height), svg[:300]
# cairo writes a filled rectangle as a path M x y L ... Z with its fill in style.
def rects(color):
    found = []
    for style, d in re.findall(r'<path style="([^"]*)" d="([^"]*)"', svg) + \
                    [(s, d) for d, s in re.findall(r'<path d="([^"]*)" style="([^"]*)"', svg)]:
        fill = re.search(r"fill:rgb\(([\d.]+)%,\s*([\d.]+)%,\s*([\d.]+)%\)", style)
        if not fill: continue
        hexcolor = "#%02x%02x%02x" % tuple(round(float(v) * 255 / 100) for v in fill.groups())
        if hexcolor != color: continue
        numbers = [float(v) for v in re.findall(r"-?[\d.]+", d)]
        xs, ys = numbers[0::2], numbers[1::2]
        found.append((min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    return sorted(found)

earned, used, background, grid = "#2e9e4f", "#e8833a", "#ffffff", "#e4e4e4"
# Bars stand on the baseline: the lowest bottom among the bars (the legend's squares are higher up).
for color, index, name in ((earned, 0, "earned"), (used, 1, "used")):
    bars = rects(color)
    baseline = max(y + h for x, y, w, h in bars)
    bars = [b for b in bars if b[1] + b[3] == baseline]
    want = [round(day[index] * 300 / 60) for day in week if day[index] > 0]
    got = [round(h) for x, y, w, h in bars]
    assert got == want, f"{name} bar heights {got}, expected {want} (60m = 300 px)"
    for x, y, w, h in bars:
        cx, top = int(x + w / 2), int(y)
        assert pixel(cx, top + 1) == color, f"{name} bar at x {cx}: {pixel(cx, top + 1)} at y {top + 1}"
        assert pixel(cx, int(baseline) - 1) == color, f"{name} bar at x {cx}: not {color} at its foot"
        above = pixel(cx, top - 2)
        assert above in (background, grid), f"{name} bar at x {cx}: {above} just above it (y {top - 2})"
    print(f"{name}: {len(bars)} bars, heights {got} px, sampled in the PNG")
# Per group: social 90m (the full 280 px), video 35m, work 10m, one color each.
palette = ["#3b6fd6", "#8e44ad", "#16a085"]
widths = [[round(w) for x, y, w, h in rects(c)] for c in palette]
assert widths == [[280], [round(35 / 90 * 280)], [round(10 / 90 * 280)]], widths
for c, (x, y, w, h) in zip(palette, (rects(c)[0] for c in palette)):
    assert pixel(int(x + 2), int(y + h / 2)) == c, (c, pixel(int(x + 2), int(y + h / 2)))
print("groups: widths", widths)

# The gaps, as blockerd's ledger has them, split at midnight (UTC here): each
# part a mark on the strip under the axis at its time of day in its day's
# column (88 + 90 px a day), 3 px below the axis, 4 px high, #777777.
import datetime, sqlite3
days = plan["days"][1:]
def midnight(d): return int(datetime.datetime.strptime(d, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc).timestamp()) * 1000
db = sqlite3.connect(plan_path.replace(".plan.json", ""))
runs = db.execute("SELECT started_ms, coalesce(ended_ms, last_tick_ms) FROM runs ORDER BY id").fetchall()
gaps = [(a[1], b[0]) for a, b in zip(runs, runs[1:]) if b[0] > a[1]]
assert len(gaps) == 3, gaps
expected = []
for start, end in gaps:
    while start < end:
        day = datetime.datetime.fromtimestamp(start / 1000, datetime.timezone.utc).strftime("%Y-%m-%d")
        low = midnight(day); high = low + 86_400_000
        stop = max(start + 1, min(end, high))
        if day in days:
            offset = lambda ms: min(90, max(0, int((ms - low) / (high - low) * 90 + 0.5)))
            x0, x1 = offset(start), offset(stop)
            w = max(1, x1 - x0)
            expected.append((88 + days.index(day) * 90 + min(x0, 90 - w), 423, w, 4))
        start = stop
off = "#777777"
marks = [r for r in rects(off) if r[1] > 400]
assert sorted(marks) == sorted(expected), (marks, expected)
assert [r for r in rects(off) if r[1] < 400] == [(88 + 2 * 96, 88, 12, 4)], ("the legend's mark", rects(off))
# The one across midnight: 22:50 to the end of D-3 (column 3), the start of D-2 (column 4) to 00:44.
assert (88 + 3 * 90 + 86, 423, 4, 4) in marks and (88 + 4 * 90, 423, 3, 4) in marks, marks
for x, y, w, h in marks:
    assert pixel(int(x + w / 2), 424) == off, f"gap mark at x {x}: {pixel(int(x + w / 2), 424)}"
print(f"gaps: {len(gaps)}, marks {sorted(marks)}, sampled in the PNG")

# The notes: a red badge (#cc0000, 14 px, 102 px from the top, over the earned
# bar's left edge: column + 13) on D-4, D-1 and today, with a white "!" in it;
# the same place is white on the other days. The legend's badge (12 px) after
# "blockerd off". In the SVG: a red path for each.
note = "#cc0000"
note_days = [days.index(d) for d in (plan["days"][3], plan["days"][6], plan["days"][7])]
for index in range(7):
    x = 88 + index * 90 + 13
    corners = [pixel(x + 1, 103), pixel(x + 12, 114)]
    if index in note_days:
        assert corners == [note, note], f"day {index}: no badge at x {x}: {corners}"
        assert any(pixel(x + 7, y) != note for y in range(102, 116)), f"day {index}: no '!' on the badge"
    else:
        assert corners == [background, background], f"day {index}: {corners} where a badge would be"
assert pixel(88 + 2 * 96 + 120 + 1, 85) == note, ("the legend's badge", pixel(88 + 2 * 96 + 120 + 1, 85))
badges = sorted(rects(note))
assert badges == sorted([(88 + 2 * 96 + 120, 84, 12, 12)] + [(88 + i * 90 + 13, 102, 14, 14) for i in note_days]), badges
print(f"notes: badges on days {note_days}, sampled in the PNG, {len(badges)} red paths in the SVG")
PY
ok "PNG 1070×496 and SVG: earned and used bars at the known heights, background above them, group bars, a mark per day's part of a gap, a badge per day with notes"

# --weeks: 14 days in the picture (the summary counts them).
line=$(ctl report --weeks 2 --output "$dir/two.svg") || fail "report --weeks 2"
grep -q ": 14 days," <<<"$line" || fail "--weeks 2 does not show 14 days: $line"
line=$(ctl report --weeks 52 --output "$dir/year.png") || fail "report --weeks 52"
grep -q "364 days" <<<"$line" && grep -q "(PNG, 4808×496)" <<<"$line" || fail "--weeks 52: $line"
ok "--weeks 2 shows 14 days; --weeks 52 draws 364 days 4808 px wide"

# Bad input: exit 2 (usage) or 1 (cannot write), the fix named, nothing written.
cp "$dir/week.png" "$dir/before.png"
expect_error() {
    local want_rc=$1 want_text=$2; shift 2
    local err rc
    err=$(ctl "$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" = "$want_rc" ] || fail "blockerctl $* exited $rc, not $want_rc: $err"
    grep -qF -- "$want_text" <<<"$err" || fail "blockerctl $*: the error does not say '$want_text': $err"
}
expect_error 2 "ending in .png or .svg" report --output "$dir/week.jpg"
expect_error 2 "missing --output FILE" report
expect_error 2 "from 1 to 52" report --weeks 0 --output "$dir/week.png"
expect_error 2 "from 1 to 52" report --weeks 53 --output "$dir/week.png"
expect_error 1 "create the directory" report --output "$dir/missing/week.png"
touch "$dir/plain"
expect_error 1 "is not a directory; choose another --output" report --output "$dir/plain/week.svg"
# Permission denied needs someone other than root: nobody, in a directory of root's.
mkdir -m 755 "$dir/roots"
chmod 755 "$dir"
setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/blockerctl" --version >/dev/null 2>&1 \
    || fail "nobody (uid 65534) cannot run $bin/blockerctl: the checkout must be readable by other users"
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/blockerctl" report --output "$dir/roots/week.png" 2>&1); rc=$?
[ "$rc" = 1 ] && grep -qF "(Permission denied) — choose an --output in a directory you can write to" <<<"$err" \
    || fail "nobody writing into root's directory: rc $rc, $err"
[ -z "$(ls -A "$dir/roots")" ] || fail "a refused report left something in the directory"
mkdir "$dir/folder.png"
expect_error 1 "it is a directory" report --output "$dir/folder.png"
expect_error 2 "--json and --csv" history --json --csv
[ ! -e "$dir/week.jpg" ] && [ ! -e "$dir/missing" ] || fail "bad input wrote something"
# blockerd gone: the old picture stays as it was, no temporary file is left.
fx_stop "$fx_daemon_pid"
expect_error 1 "blockerd is not running" report --output "$dir/week.png"
cmp -s "$dir/week.png" "$dir/before.png" || fail "a failed report changed the existing week.png"
[ -z "$(find "$dir" -maxdepth 1 -name '.week*')" ] || fail "a failed report left a temporary file"
ok "bad --output, --weeks, directories, permission denied: exit 2/1 with the fix; a failed report keeps the old file"

cp "$dir/week.png" "$here/docs/report.png" || fail "cannot save docs/report.png"
ok "saved docs/report.png"
