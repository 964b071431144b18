#!/usr/bin/env bash
# The peer benchmark (issue 12, "Close to the floor"): blockerd beside what
# else watches the window in front, side by side in one run, on one Xvfb +
# openbox, through the same two phases:
#   switching — focus moves every 2 s between three xterms (Discord, Notes,
#               Editor) for PEER_SWITCH_SECONDS (default 600);
#   static    — Editor in front, nothing changing, for PEER_STATIC_SECONDS
#               (default 300).
# The contenders:
#   blockerd      the release binary with the X11 probe, a session bus, and a
#                 balance to spend on the metered group "social" (discord): it
#                 charges the third of the switching phase Discord is in front;
#   X11 probe alone  `blocker-bench x11-floor`: blockerd's X11 probe woken and
#                 read as blockerd's loop does it (the burst waited out, one
#                 sample a change), nothing else: what a focus change costs
#                 here before any of blocker's own work, so blockerd's row less
#                 this one is blocker's (the tick, the bus, the loop);
#   loop          what a user would script: once a second `xdotool
#                 getactivewindow` + `xprop -id … WM_CLASS _NET_WM_NAME`;
#   timekpr-nExT  its daemon (timekprd, Python, polls every 3 s) on a PRIVATE
#                 system bus with python3-dbusmock's logind: user blocker-peer
#                 (uid 59123, only in a private /etc/passwd) with an active x11
#                 session c1. timekprd runs in its own mount namespace where
#                 /etc/timekpr is this run's directory and /etc/passwd, /tmp,
#                 /var/log and /var/lib/timekpr are private: nothing of the
#                 machine's is written. Its log must show a poll every 3 s in
#                 both phases, counting the session as active, or the run fails.
# Measured for each process, over each phase:
#   CPU       on-CPU time of every thread (Σ /proc/PID/task/*/schedstat, ns) plus
#             the CPU of the children it reaped (cutime + cstime of
#             /proc/PID/stat): the loop's xdotool/xprop/sleep runs are its
#             reaped children, so its figure is the whole loop. The same
#             utime+stime(+cutime+cstime) in /proc/PID/stat clock ticks is
#             shown for blockerd as a cross-check: ticks are 10 ms, coarse
#             against 0.1 ms/s over a short phase;
#   switches  voluntary context switches of every thread (Σ
#             /proc/PID/task/*/status); the loop's are the shell's own, not its
#             short-lived children's;
#   RSS       VmRSS at the end of the phase (the loop: the shell's).
# Prints "| label | value | target |" rows (scripts/bench.sh lays them out).
#   [PEER_SWITCH_SECONDS=600] [PEER_STATIC_SECONDS=300] scripts/bench-peers.sh BIN_DIR
# BIN_DIR holds blockerd, blockerctl and blocker-bench (swift build -c release --show-bin-path).
set -euo pipefail
bin=${1:-}
[ -n "$bin" ] && [ -x "$bin/blockerd" ] && [ -x "$bin/blockerctl" ] && [ -x "$bin/blocker-bench" ] \
    || { echo "usage: scripts/bench-peers.sh BIN_DIR (a directory with blockerd, blockerctl and blocker-bench: swift build -c release --show-bin-path)" >&2; exit 2; }
switch_seconds=${PEER_SWITCH_SECONDS:-600}
static_seconds=${PEER_STATIC_SECONDS:-300}
for setting in "PEER_SWITCH_SECONDS=$switch_seconds" "PEER_STATIC_SECONDS=$static_seconds"; do
    [[ "${setting#*=}" =~ ^[0-9]+$ ]] && [ "${setting#*=}" -ge 30 ] \
        || { echo "bench-peers: $setting: give whole seconds, at least 30 (e.g. ${setting%%=*}=120)" >&2; exit 2; }
done
source "$(dirname "$0")/lib/fixtures.sh"
fx_begin bench-peers
dir=$fx_dir
# Debian's python: python3-dbusmock and timekpr's modules are installed for it.
python=/usr/bin/python3
timekprd=/usr/lib/python3/dist-packages/timekpr/server/timekprd.py
for tool in Xvfb openbox xterm xdotool xprop dbus-daemon gdbus unshare mount $python; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh bench installs the bench dependencies)"
done
$python -c 'import dbusmock' 2>/dev/null || fail "python3-dbusmock is not installed (scripts/deps.sh bench)"
[ -f "$timekprd" ] || fail "timekpr-nExT is not installed ($timekprd; scripts/deps.sh bench)"
[ "$(id -u)" -eq 0 ] || fail "run as root: timekpr-nExT's daemon runs in a private mount namespace (unshare --mount)"
note() { echo "bench-peers: $*" >&2; }
load_start=$(cut -d' ' -f1 /proc/loadavg)

# The display: Xvfb + openbox, three xterms.
fx_x_session "$dir"
declare -A window
classes=(Discord Notes Editor)
for class in "${classes[@]}"; do
    xterm -class "$class" -title "$class" -e sleep 100000 >/dev/null 2>&1 &
    fx_track $!
    window[$class]=$(fx_x_window "$class") || fail "no $class xterm on $DISPLAY"
done
front() { fx_x_activate "${window[$1]}" || fail "openbox did not activate the $1 xterm"; }
front Editor

# The buses: blockerd's session bus; the private system bus with the mock logind.
mkdir -p "$dir/session" "$dir/timekpr/sys"
read -r session_bus session_bus_pid < <(fx_session_bus "$dir/session") || fail "the session dbus-daemon did not start"
fx_track "$session_bus_pid"
read -r system_bus system_bus_pid < <(fx_session_bus "$dir/timekpr/sys") || fail "the private system dbus-daemon did not start"
fx_track "$system_bus_pid"
DBUS_SYSTEM_BUS_ADDRESS=$system_bus $python -m dbusmock --system -l "$dir/logind-calls.log" --template logind \
    >"$dir/logind.log" 2>&1 &
fx_track $!
logind() { DBUS_SYSTEM_BUS_ADDRESS=$system_bus gdbus call --system -d org.freedesktop.login1 "$@" >/dev/null; }
for _ in $(seq 100); do logind -o /org/freedesktop/login1 -m org.freedesktop.login1.Manager.ListUsers 2>/dev/null && break; sleep 0.1; done
logind -o /org/freedesktop/login1 -m org.freedesktop.DBus.Mock.AddSession c1 seat0 59123 blocker-peer true \
    || fail "the mock logind did not take AddSession"
# dbusmock's sessions are of type "test"; timekpr counts x11, wayland and mir.
logind -o /org/freedesktop/login1/session/c1 -m org.freedesktop.DBus.Properties.Set \
    org.freedesktop.login1.Session Type '<"x11">' || fail "the mock logind did not take Type = x11"

# blockerd as its unit runs it: a notify socket and WatchdogSec=30s (it pings
# every 15 s), the X11 probe, the lock of session c1 from logind, and 500
# minutes to spend on discord.
$python -c '
import socket, sys
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(sys.argv[1])
with open(sys.argv[2], "a") as log:
    while True:
        log.write(listener.recv(4096).decode(errors="replace").replace("\n", " ") + "\n")
        log.flush()' "$dir/notify" "$dir/notify.log" 2>"$dir/notify-listener.log" &
fx_track $!
for _ in $(seq 100); do [ -S "$dir/notify" ] && break; sleep 0.05; done
[ -S "$dir/notify" ] || fail "the notify socket listener did not start"
fx_config "$dir/blocker.toml" "$dir/unused.json" x11
env -i HOME="$dir" TZ=UTC PATH=/usr/bin:/bin DISPLAY="$DISPLAY" DBUS_SESSION_BUS_ADDRESS="$session_bus" \
    DBUS_SYSTEM_BUS_ADDRESS="$system_bus" XDG_SESSION_ID=c1 NOTIFY_SOCKET="$dir/notify" WATCHDOG_USEC=30000000 \
    "$bin/blockerd" --config "$dir/blocker.toml" --state-dir "$dir/state" >"$dir/blockerd.log" 2>&1 &
blockerd_pid=$!
fx_track "$blockerd_pid"
ctl() { env -i HOME="$dir" PATH=/usr/bin:/bin DBUS_SESSION_BUS_ADDRESS="$session_bus" "$bin/blockerctl" "$@"; }
for _ in $(seq 100); do grep -q READY=1 "$dir/notify.log" 2>/dev/null && break; sleep 0.1; done
grep -q READY=1 "$dir/notify.log" 2>/dev/null || fail "blockerd did not send READY=1 within 10 s"
ctl earn 1000 pushups >/dev/null || fail "blockerctl earn failed: $(ctl status 2>&1 | head -3)"
status() { ctl status --json | $python -c "import json, sys; s = json.load(sys.stdin); print($1)"; }
[ "$(status 's["probe"]["name"], s["probe"]["ok"]')" = "x11 True" ] \
    || fail "blockerd's x11 probe is not working: $(status 's["probe"]')"

# blockerd's X11 probe alone, as blockerd's loop drives it.
"$bin/blocker-bench" x11-floor 2>"$dir/floor.log" &
floor_pid=$!
fx_track "$floor_pid"

# The loop, as a user would write it (the nap in the background only so that
# SIGTERM stops it at once, sleep included).
cat >"$dir/loop.sh" <<'SH'
trap 'kill "$nap" 2>/dev/null; exit 0' TERM
while :; do
    id=$(xdotool getactivewindow) && xprop -id "$id" WM_CLASS _NET_WM_NAME >>"$1"
    sleep 1 & nap=$!
    wait "$nap"
done
SH
bash "$dir/loop.sh" "$dir/loop-samples.log" 2>"$dir/loop.log" &
loop_pid=$!
fx_track "$loop_pid"

# timekpr-nExT: its shipped defaults, with its directories under /etc/timekpr
# (which is $dir/timekpr in its namespace).
tk=$dir/timekpr
mkdir -p "$tk/config" "$tk/work" "$tk/log"
cat >"$tk/timekpr.conf" <<'CONF'
[DOCUMENTATION]
#### timekpr-nExT's defaults (0.5.4), its directories moved for scripts/bench-peers.sh

[GENERAL]
TIMEKPR_LOGLEVEL = 1
TIMEKPR_POLLTIME = 3
TIMEKPR_SAVE_TIME = 30
TIMEKPR_TRACK_INACTIVE = False
TIMEKPR_TERMINATION_TIME = 15
TIMEKPR_FINAL_WARNING_TIME = 10
TIMEKPR_FINAL_NOTIFICATION_TIME = 60

[SESSION]
TIMEKPR_SESSION_TYPES_CTRL = x11;wayland;mir
TIMEKPR_SESSION_TYPES_EXCL = tty;unspecified
TIMEKPR_USERS_EXCL = testtimekpr;gdm;kdm;lightdm;mdm;lxdm;xdm;sddm;cdm

[DIRECTORIES]
TIMEKPR_CONFIG_DIR = /etc/timekpr/config
TIMEKPR_WORK_DIR = /etc/timekpr/work
TIMEKPR_SHARED_DIR = /usr/share/timekpr
TIMEKPR_LOGFILE_DIR = /etc/timekpr/log

[PLAYTIME]
TIMEKPR_PLAYTIME_ENABLED = False
TIMEKPR_PLAYTIME_ENHANCED_ACTIVITY_MONITOR_ENABLED = False
CONF
# The machine's system accounts and the one user timekpr tracks.
awk -F: '$3 < 1000 || $3 == 65534' /etc/passwd >"$tk/passwd"
echo 'blocker-peer:x:59123:59123:timekpr bench user:/nonexistent:/usr/sbin/nologin' >>"$tk/passwd"
# unshare and bash exec, so $! is timekprd itself.
unshare --mount --propagation private -- /bin/bash -c '
    set -e
    mount --bind "$1" /etc/timekpr
    mount --bind /etc/timekpr/passwd /etc/passwd
    mount -t tmpfs -o mode=1777 tmpfs /tmp
    mount -t tmpfs tmpfs /var/log
    if [ -d /var/lib/timekpr ]; then mount -t tmpfs tmpfs /var/lib/timekpr; fi
    cd /usr/lib/python3/dist-packages/timekpr
    DBUS_SYSTEM_BUS_ADDRESS=unix:path=/etc/timekpr/sys/bus exec "$2" "$3"' \
    timekpr-namespace "$tk" "$python" "$timekprd" >"$dir/timekprd.log" 2>&1 &
timekpr_pid=$!
fx_track "$timekpr_pid"

# Warm-up: every contender at work (timekpr's first log flush comes after 42 lines).
tk_log=$tk/log/timekpr.log
for _ in $(seq 600); do
    [ -s "$tk_log" ] && grep -q 'get time for "blocker-peer"' "$tk_log" \
        && [ "$(grep -c WM_CLASS "$dir/loop-samples.log" 2>/dev/null)" -ge 2 ] && break
    fx_alive "$timekpr_pid" || fail "timekprd exited: $(tail -5 "$dir/timekprd.log")"
    sleep 0.1
done
grep -q 'get time for "blocker-peer"' "$tk_log" 2>/dev/null || fail "timekprd did not track blocker-peer within 60 s: $(tail -5 "$tk_log" "$dir/timekprd.log" 2>&1)"
grep -q 'could not parse main configuration' "$tk_log" && fail "timekprd did not take $tk/timekpr.conf"
grep -q "$timekprd" "/proc/$timekpr_pid/cmdline" || fail "PID $timekpr_pid is not timekprd"
sleep 5
fx_alive "$floor_pid" || fail "blocker-bench x11-floor exited: $(tail -3 "$dir/floor.log")"

hz=$(getconf CLK_TCK)
# PID → "CPU_NS TICKS SWITCHES": every thread's on-CPU ns plus reaped children's
# ticks (as ns); utime+stime+cutime+cstime; voluntary switches of every thread.
reading() {
    local pid=$1 own ticks kids switches
    own=$(cat /proc/"$pid"/task/*/schedstat | awk '{n += $1} END {printf "%d", n}')
    read -r ticks kids < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12 + $13 + $14 + $15, $14 + $15}')
    switches=$(cat /proc/"$pid"/task/*/status | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n}')
    echo "$((own + kids * 1000000000 / hz)) $ticks $switches"
}
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
now_us() { echo "${EPOCHREALTIME/./}"; }
names=(blockerd floor loop timekpr)
declare -A pid_of=([blockerd]=$blockerd_pid [floor]=$floor_pid [loop]=$loop_pid [timekpr]=$timekpr_pid)
declare -A start_reading end_reading rss
# snapshot start|end PHASE, with the time in µs in phase_start/phase_end[PHASE].
declare -A phase_start phase_end samples_at
snapshot() {
    local edge=$1 phase=$2 name
    for name in "${names[@]}"; do
        fx_alive "${pid_of[$name]}" || fail "$name (PID ${pid_of[$name]}) is not running"
        if [ "$edge" = start ]; then start_reading[$name.$phase]=$(reading "${pid_of[$name]}")
        else end_reading[$name.$phase]=$(reading "${pid_of[$name]}"); rss[$name.$phase]=$(rss_kib "${pid_of[$name]}"); fi
    done
    samples_at[$edge.$phase]=$(grep -c WM_CLASS "$dir/loop-samples.log" || true)
    if [ "$edge" = start ]; then phase_start[$phase]=$(now_us); else phase_end[$phase]=$(now_us); fi
}
sleep_us() { [ "$1" -gt 0 ] && sleep "$(printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)))"; return 0; }

balance_ms() { status 's["balance_ms"]'; }
balance_before=$(balance_ms)
rss_blockerd_before=$(rss_kib "$blockerd_pid")
note "switching focus every 2 s for $switch_seconds s (load average $load_start)"
snapshot start switching
t0=${phase_start[switching]}
end=$((t0 + switch_seconds * 1000000))
changes=0
while [ "$(now_us)" -lt "$end" ]; do
    front "${classes[changes % 3]}"
    changes=$((changes + 1))
    next=$((t0 + changes * 2000000))
    [ "$next" -gt "$end" ] && next=$end
    sleep_us $((next - $(now_us)))
done
snapshot end switching
balance_switched=$(balance_ms)

front Editor
sleep 3
note "nothing changing for $static_seconds s"
snapshot start static
sleep "$static_seconds"
snapshot end static
balance_static=$(balance_ms)
load_end=$(cut -d' ' -f1 /proc/loadavg)
front_app=$(status '(s["foreground"] or {}).get("app")')

# Stop timekprd now (SIGTERM: it writes out its buffered log), then count its polls.
fx_stop "$timekpr_pid"
untracked=()
for p in "${fx_pids[@]}"; do [ "$p" = "$timekpr_pid" ] || untracked+=("$p"); done
fx_pids=("${untracked[@]}")
# Per phase: the polls it logged, and how much of blocker-peer's time it counted (tspbal).
poll_counts=$($python - "$tk_log" "${phase_start[switching]}" "${phase_end[switching]}" \
    "${phase_start[static]}" "${phase_end[static]}" <<'PY'
import sys, datetime
log, *edges = sys.argv[1:]
windows = [(int(edges[i]) / 1e6, int(edges[i + 1]) / 1e6) for i in (0, 2)]
polls, spent = [0, 0], [[], []]
for line in open(log, encoding="utf-8", errors="replace"):
    stamp, _, text = line.rstrip("\n").partition(": ")
    try:
        t = datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp()
    except ValueError:
        continue
    for i, (a, b) in enumerate(windows):
        if a <= t <= b:
            if text.startswith("--- start working on users ---"):
                polls[i] += 1
            elif text.startswith('get time for "blocker-peer"'):
                spent[i].append(int(text.split("tspbal: ")[1].split(",")[0]))
print(*polls, *[s[-1] - s[0] if s else -1 for s in spent])
PY
) || fail "could not read timekprd's log $tk_log"
read -r polls_switching polls_static counted_switching counted_static <<<"$poll_counts"

# Evidence that every contender did its work during the measurement.
seconds_of() { if [ "$1" = switching ]; then echo "$switch_seconds"; else echo "$static_seconds"; fi; }
declare -A polls=([switching]=$polls_switching [static]=$polls_static)
declare -A counted=([switching]=$counted_switching [static]=$counted_static)
for phase in switching static; do
    seconds=$(seconds_of "$phase")
    [ "${polls[$phase]}" -ge $((seconds * 8 / 30)) ] \
        || fail "timekprd logged ${polls[$phase]} polls in the $phase phase's $seconds s, not one every 3 s: it did not run its loop"
    [ "${counted[$phase]}" -ge $((seconds * 8 / 10 - 6)) ] \
        || fail "timekprd counted ${counted[$phase]} s of blocker-peer's active session in the $phase phase's $seconds s"
    samples=$((${samples_at[end.$phase]} - ${samples_at[start.$phase]}))
    [ "$samples" -ge $((seconds * 8 / 10)) ] || fail "the loop took $samples samples in the $phase phase's $seconds s"
done
# Two wake-ups a change (the event, the end of its burst); fewer than one, and it missed changes.
read -r _ _ floor_woken0 <<<"${start_reading[floor.switching]}"
read -r _ _ floor_woken1 <<<"${end_reading[floor.switching]}"
[ $((floor_woken1 - floor_woken0)) -ge "$changes" ] \
    || fail "blocker-bench x11-floor woke $((floor_woken1 - floor_woken0)) times for $changes focus changes: it did not follow them"
charged_switching=$((balance_before - balance_switched))
charged_static=$((balance_switched - balance_static))
[ "$charged_switching" -ge $((switch_seconds * 1000 / 5)) ] \
    || fail "blockerd charged only $charged_switching ms in $switch_seconds s with Discord in front a third of the time"
[ "$charged_static" -le 1000 ] || fail "blockerd charged $charged_static ms in the static phase, with Editor (in no group) in front"
[ "${front_app,,}" = editor ] || fail "blockerd sees $front_app in front at the end, not the Editor xterm"

# The table.
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f MiB", k / 1024}'; }
# ratio A B WHEN_B_IS_ZERO: A / B as "N.Nx".
ratio() { awk -v a="$1" -v b="$2" -v none="$3" 'BEGIN {if (b > 0) printf "%.1fx", a / b; else print none}'; }
declare -A title=([blockerd]="blockerd" [floor]="X11 probe alone" [loop]="xprop loop" [timekpr]="timekpr-nExT")
declare -A cpu_ms tick_ms vcs
row "peers: switching phase, focus every 2 s" "$switch_seconds s, $changes changes" ""
row "peers: static phase, Editor in front" "$static_seconds s" ""
row "peers: blockerd RSS, before the run" "$(mib "$rss_blockerd_before")" "<= 12 MiB"
for phase in switching static; do
    elapsed_us=$((${phase_end[$phase]} - ${phase_start[$phase]}))
    for name in "${names[@]}"; do
        read -r ns0 ticks0 vcs0 <<<"${start_reading[$name.$phase]}"
        read -r ns1 ticks1 vcs1 <<<"${end_reading[$name.$phase]}"
        cpu_ms[$name.$phase]=$(awk -v d=$((ns1 - ns0)) -v us="$elapsed_us" 'BEGIN {printf "%.4f", d / us}')
        tick_ms[$name.$phase]=$(awk -v d=$((ticks1 - ticks0)) -v hz="$hz" -v us="$elapsed_us" 'BEGIN {printf "%.3f", d / hz * 1e9 / us}')
        vcs[$name.$phase]=$(awk -v d=$((vcs1 - vcs0)) -v us="$elapsed_us" 'BEGIN {printf "%.2f", d * 1e6 / us}')
        cpu_target="" vcs_target="" rss_target=""
        if [ "$name" = blockerd ]; then
            cpu_target="<= 0.15 ms/s" rss_target="<= 12 MiB"
            [ "$phase" = static ] && cpu_target="<= 0.10 ms/s" vcs_target="<= 1.5/s"
        fi
        row "peers: ${title[$name]} CPU, $phase" "$(printf '%.3f ms/s' "${cpu_ms[$name.$phase]}")" "$cpu_target"
        [ "$name" = blockerd ] && row "peers:   the same in /proc/PID/stat ticks" "${tick_ms[$name.$phase]} ms/s" "($((1000 / hz)) ms a tick)"
        row "peers: ${title[$name]} voluntary switches, $phase" "${vcs[$name.$phase]} /s" "$vcs_target"
        row "peers: ${title[$name]} RSS, end of $phase" "$(mib "${rss[$name.$phase]}")" "$rss_target"
    done
    for peer in timekpr loop; do
        target=""; [ "$peer" = timekpr ] && target=">= 5x"
        row "peers: ${title[$peer]} / blockerd CPU, $phase" \
            "$(ratio "${cpu_ms[$peer.$phase]}" "${cpu_ms[blockerd.$phase]}" "inf (blockerd never ran)")" "$target"
    done
    row "peers: blockerd less the X11 probe alone, $phase" \
        "$(awk -v a="${cpu_ms[blockerd.$phase]}" -v b="${cpu_ms[floor.$phase]}" 'BEGIN {printf "%.3f ms/s", a - b}')" "blocker's own work"
    row "peers: timekpr-nExT / the X11 probe alone CPU, $phase" \
        "$(ratio "${cpu_ms[timekpr.$phase]}" "${cpu_ms[floor.$phase]}" inf)" \
        "the most an event-driven X11 tool gets here"
    row "peers: timekpr-nExT polls logged, $phase" "${polls[$phase]}" "one per 3 s: it ran"
    row "peers: timekpr-nExT counted as active, $phase" "${counted[$phase]} s" "about the phase"
done
row "peers: blockerd charged Discord, switching" "$(awk -v ms="$charged_switching" 'BEGIN {printf "%.1f s", ms / 1000}')" "a third: ~$((switch_seconds / 3)) s"
row "peers: load average (1 min), start -> end" "$load_start -> $load_end" "(2 cores, shared)"
