#!/usr/bin/env bash
# The browser benchmark (issue 24, "Websites share the budget"): real Chromium
# with blocker's extension (extensions/browser/) and its native messaging host
# (blocker-browser-host, a link to the release blockerctl) on Xvfb + openbox,
# blockerd (release, x11 probe) on a private session bus, the sites served by
# a local web server (scripts/lib/browser-env.sh), as scripts/itest-browser.sh
# runs them. The config meters the site video.example; chromium itself is in
# an unmetered group. Two tabs: video (metered) and news (not metered).
#
#   1. Tab switches (BENCH_TAB_SWITCHES, default 20, 0.5 s apart): each one
#      `xdotool key --clearmodifiers ctrl+Tab`, timed from just before xdotool
#      starts to
#        - the host's ReportTab call on the bus (browser + extension + host),
#        - `blockerctl status --json` first showing the new tab's site in
#          front (blockerd's last decided window): polled every 10 ms, so up
#          to ~10 ms + one blockerctl run late. (blockerd's BalanceChanged is
#          no clock for it: when spending starts it is said at the next tick.)
#      The bus times are dbus-monitor's (--profile) on the private bus.
#   2. At rest (BENCH_SECONDS, default 30, each): nothing touched, once with
#      the news tab in front (nothing charged: nothing changes), once with the
#      video tab in front (charged: blockerd commits, and says BalanceChanged,
#      every 10 s). For the host and for blockerd: on-CPU time of every thread
#      (Σ /proc/PID/task/*/schedstat, ns) in ms/s, and voluntary context
#      switches (Σ /proc/PID/task/*/status) as wake-ups/s. The extension asks
#      Chromium for the focused window once a second but tells the host only
#      a change: the host should sleep.
# Prints "| label | value | target |" rows (scripts/bench.sh lays them out).
#   [BENCH_TAB_SWITCHES=20] [BENCH_SECONDS=30] scripts/bench-browser.sh BIN_DIR
# BIN_DIR holds blockerd and blockerctl (swift build -c release --show-bin-path).
set -euo pipefail
bin=${1:-}
[ -n "$bin" ] && [ -x "$bin/blockerd" ] && [ -x "$bin/blockerctl" ] \
    || { echo "usage: scripts/bench-browser.sh BIN_DIR (a directory with blockerd and blockerctl: swift build -c release --show-bin-path)" >&2; exit 2; }
bin=$(cd "$bin" && pwd)
switches=${BENCH_TAB_SWITCHES:-20}
seconds=${BENCH_SECONDS:-30}
[[ "$switches" =~ ^[0-9]+$ ]] && [ "$switches" -ge 2 ] \
    || { echo "bench-browser: BENCH_TAB_SWITCHES=$switches: give a whole number, at least 2" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 5 ] \
    || { echo "bench-browser: BENCH_SECONDS=$seconds: give whole seconds, at least 5" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/fixtures.sh
source "$here/lib/fixtures.sh"
# shellcheck source=lib/browser-env.sh
source "$here/lib/browser-env.sh"
fx_begin bench-browser
fx_need Xvfb openbox xdotool python3 chromium dbus-monitor stdbuf pgrep
[ -r /usr/share/publicsuffix/public_suffix_list.dat ] || fail "the Public Suffix List is not installed (apt-get install publicsuffix)"
fx_private_session
fx_x_session "$fx_dir"

# The bus as seen from outside: the host's ReportTab calls and blockerd's signals, timed.
stdbuf -oL dbus-monitor --session --profile "type='method_call',member='ReportTab'" \
    "type='signal',interface='io.github.blockerd.Blocker1'" >"$fx_dir/monitor.txt" 2>"$fx_dir/monitor.log" &
fx_track $!

mkdir -p "$fx_dir/host"
ln -s "$bin/blockerctl" "$fx_dir/host/blocker-browser-host"
be_native_manifests "$HOME" "$fx_dir/host/blocker-browser-host"
be_http_server "$fx_dir/www" >/dev/null
video=$(be_url "$be_port" m.video.example youtube.html)
news=$(be_url "$be_port" news.example news.html)

be_config "$fx_dir/blocker.toml"
fx_start_blockerd "$bin" --config "$fx_dir/blocker.toml" --state-dir "$fx_dir/state"
blockerd_pid=$fx_daemon_pid
"$bin/blockerctl" earn 1000 pushups >/dev/null || fail "blockerctl earn failed"

status() { "$bin/blockerctl" status --json | fx_json "$1"; }
tab_site() { status '((s["foreground"] or {}).get("tab") or {}).get("site")'; }

be_chromium "$HOME" "$be_port" "$video" "$news" >/dev/null
window=$(fx_x_window Chromium) || fail "no Chromium window on $DISPLAY"
fx_x_activate "$window" || fail "openbox did not activate Chromium"
fx_wait 30 eval '[ "$(tab_site)" = video.example ]' ||
    fail "blockerd never heard the video tab from the extension (front: $(status 's["foreground"]'))"

# The host: the child of Chromium's main process that runs the release blockerctl.
ctl_exe=$(readlink -f "$bin/blockerctl")
find_host() {
    local p
    for p in $(pgrep -P "$be_chromium_pid"); do
        [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$ctl_exe" ] && { host_pid=$p; return 0; }
    done
    return 1
}
host_pid=
fx_wait 10 find_host || fail "no blocker-browser-host ($ctl_exe) among Chromium's ($be_chromium_pid) children"

# 1. Tab switches. Prints "PRESSED SEEN" (epoch seconds) a switch.
python3 - "$bin/blockerctl" "$switches" >"$fx_dir/switches.txt" 2>"$fx_dir/switches.log" <<'PY' ||
import json, subprocess, sys, time
ctl, count = sys.argv[1], int(sys.argv[2])
def site():
    out = subprocess.run([ctl, "status", "--json"], capture_output=True, text=True).stdout
    s = json.loads(out)
    return ((s.get("foreground") or {}).get("tab") or {}).get("site")
current = site()
for i in range(count):
    expected = "news.example" if current == "video.example" else "video.example"
    time.sleep(0.5)
    pressed = time.time()
    subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+Tab"], check=True)
    while True:
        now = site()
        seen = time.time()
        if now == expected:
            break
        if seen - pressed > 5:
            sys.exit(f"switch {i + 1}: blockerd still shows {now} 5 s after ctrl+Tab (expected {expected})")
        time.sleep(0.01)
    print(f"{pressed:.6f} {seen:.6f}", flush=True)
    current = expected
PY
    fail "the tab switches: $(tail -n 1 "$fx_dir/switches.log")"
sleep 0.5 # the last switch's ReportTab in the monitor's file

# Each switch: key -> ReportTab, ReportTab -> status seen, key -> status seen (ms).
python3 - "$fx_dir/switches.txt" "$fx_dir/monitor.txt" >"$fx_dir/latency.txt" 2>"$fx_dir/latency.log" <<'PY' ||
import statistics, sys
switches = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
calls = []
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 8 and f[0] == "mc" and f[7] == "ReportTab":
        calls.append(float(f[1]))
rows = {"report": [], "decide": [], "seen": []}
for pressed, seen in switches:
    call = next((t for t in calls if pressed <= t <= seen), None)
    if call is None:
        sys.exit(f"no ReportTab on the bus between the key ({pressed:.3f}) and status showing the tab ({seen:.3f})")
    rows["report"].append((call - pressed) * 1000)
    rows["decide"].append((seen - call) * 1000)
    rows["seen"].append((seen - pressed) * 1000)
for name, ms in rows.items():
    print(name, f"{statistics.median(ms):.0f}", f"{max(ms):.0f}", len(ms))
PY
    fail "the switches' bus times: $(tail -n 1 "$fx_dir/latency.log")"
latency() { awk -v n="$1" '$1 == n { printf "%s ms (max %s)", $2, $3 }' "$fx_dir/latency.txt"; }

# 2. At rest. "CPU_NS SWITCHES" of every thread of PID.
usage() {
    local t ns sum=0 vol=0
    for t in /proc/"$1"/task/*; do
        read -r ns _ <"$t/schedstat" 2>/dev/null || continue
        sum=$((sum + ns))
        vol=$((vol + $(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null || echo 0)))
    done
    echo "$sum $vol"
}
# rest NAME — watches the host and blockerd for $seconds; sets ${NAME}_host, ${NAME}_daemon
# ("MS_PER_S WAKEUPS_PER_S") and ${NAME}_calls, ${NAME}_signals (seen on the bus meanwhile).
rest() {
    local name=$1 h0 d0 h1 d1 t0 t1 m0 m1
    m0=$(wc -l <"$fx_dir/monitor.txt")
    t0=${EPOCHREALTIME/./}; h0=$(usage "$host_pid"); d0=$(usage "$blockerd_pid")
    sleep "$seconds"
    t1=${EPOCHREALTIME/./}; h1=$(usage "$host_pid"); d1=$(usage "$blockerd_pid")
    m1=$(wc -l <"$fx_dir/monitor.txt")
    fx_alive "$host_pid" || fail "blocker-browser-host ($host_pid) went during the rest"
    fx_alive "$blockerd_pid" || fail "blockerd went during the rest"
    rate() { # BEFORE AFTER
        awk -v a="$1" -v b="$2" -v us=$((t1 - t0)) 'BEGIN {
            split(a, x, " "); split(b, y, " "); s = us / 1e6
            printf "%.3f %.2f", (y[1] - x[1]) / 1e6 / s, (y[2] - x[2]) / s }'
    }
    printf -v "${name}_host" '%s' "$(rate "$h0" "$h1")"
    printf -v "${name}_daemon" '%s' "$(rate "$d0" "$d1")"
    printf -v "${name}_calls" '%s' "$(sed -n "$((m0 + 1)),${m1}p" "$fx_dir/monitor.txt" | grep -c $'\tReportTab$' || true)"
    printf -v "${name}_signals" '%s' "$(sed -n "$((m0 + 1)),${m1}p" "$fx_dir/monitor.txt" | grep -c '^sig' || true)"
}
# switch_to SITE — ctrl+Tab until blockerd shows SITE in front, then 2 s for the dust to settle.
switch_to() {
    want_site=$1
    if [ "$(tab_site)" != "$want_site" ]; then
        xdotool key --clearmodifiers ctrl+Tab
        fx_wait 5 eval '[ "$(tab_site)" = "$want_site" ]' || fail "the switch to $want_site was not heard"
    fi
    sleep 2
}
switch_to news.example
rest news
switch_to video.example
rest video
[ "$(tab_site)" = video.example ] || fail "the video tab is no longer in front after the rest"

row() { printf '| %-50s | %18s | %-26s |\n' "$@"; }
read -r news_host_cpu news_host_wakes <<<"$news_host"
read -r news_daemon_cpu news_daemon_wakes <<<"$news_daemon"
read -r video_host_cpu video_host_wakes <<<"$video_host"
read -r video_daemon_cpu video_daemon_wakes <<<"$video_daemon"
n=$(awk '$1 == "seen" { print $4 }' "$fx_dir/latency.txt")
row "browser: ctrl+Tab -> blockerd decided, median ($n)" "$(latency seen)" ""
row "  key -> ReportTab (browser + extension + host)" "$(latency report)" ""
row "  ReportTab -> status shows it (polled at 10 ms)" "$(latency decide)" ""
row "browser: blocker-browser-host at rest ($seconds s, news)" "$news_host_cpu ms/s" ""
row "  its wake-ups ($news_calls ReportTab, $news_signals signals)" "$news_host_wakes /s" "0 /s (it sleeps)"
row "  blockerd over the same $seconds s" "$news_daemon_cpu ms/s" ""
row "  blockerd's wake-ups" "$news_daemon_wakes /s" ""
row "browser: the host, video tab charged ($seconds s)" "$video_host_cpu ms/s" ""
row "  its wake-ups ($video_calls ReportTab, $video_signals signals)" "$video_host_wakes /s" ""
row "  blockerd over the same $seconds s" "$video_daemon_cpu ms/s" ""
row "  blockerd's wake-ups" "$video_daemon_wakes /s" ""
