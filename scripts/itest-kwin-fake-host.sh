#!/usr/bin/env bash
# itest-kwin-fake-host.sh — blocker's KWin script against a FAKE KWin
# scripting host (scripts/lib/fake-kwin-host.js, gjs) in the Plasma 6 shape
# (windowActivated, activeWindow, /Scripting/Script<id>) — Plasma 6 cannot run
# here — and in the Plasma 5 shape as a fast check; the real KWin 5.27 is
# itest-kde.sh. For each shape, on a private session bus with the real blockerd
# (kde probe), which loads the script through the fake's org.kde.kwin.Scripting:
#   1. the script reports the active window as it starts;
#   2. activations (emitted as KWin does: nothing, then the window) and caption
#      changes reach `blockerctl status --json` (a burst of ten in at most two
#      reports), and no transient "nothing" is reported;
#   3. nothing active for real is reported, after the settling delay;
#   4. an ordinary-window cover (KWin on X11: no layer-shell) is pinned
#      (keep-above, fullscreen, out of taskbar and switcher), its activation is
#      reported with its pid (blockerd knows its real cover by its process, so
#      this fake one is in front), and it takes the focus back when another
#      window is activated;
#   5. the script leaves no error in the host's log;
#   6. scripts/install-kwin-script.sh install finds the (fake) KWin on the bus
#      and loads the script into it live, with /sys/fs/cgroup hidden as in a
#      chroot (where `busctl status` fails: "Failed to get credentials").
# And once, statically: no top-level const/let of main.js is named before its
# declaration (KWin 6's JS engine warns: "used before its declaration").
# Exit 0 pass, 1 fail; a missing tool is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
fx_begin kwin-fake-host
fx_need gjs busctl dbus-daemon python3
fx_programs blockerd blockerctl
unset DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE XDG_CONFIG_HOME XDG_DATA_DIRS
export HOME=$fx_dir/home XDG_DATA_HOME=$fx_dir/data XDG_CURRENT_DESKTOP=KDE LANG=C.UTF-8
mkdir -p "$HOME" "$XDG_DATA_HOME/kwin/scripts"
cp -R extensions/kwin "$XDG_DATA_HOME/kwin/scripts/blocker"
cat >"$fx_dir/blocker.toml" <<'TOML'
[daemon]
probe = "kde"
[earn]
pushups = 0.5
[[group]]
name = "meter"
apps = ["blockermeter"]
TOML

wait_for() { # SECONDS COMMAND…
    local tries=$(($1 * 20))
    shift
    for _ in $(seq "$tries"); do "$@" && return 0; sleep 0.05; done
    return 1
}

run_shape() {
    local shape=$1 log=$fx_dir/host-$1.log
    mkdir -m 0700 "$fx_dir/$shape"
    local address bus_pid
    read -r address bus_pid < <(fx_session_bus "$fx_dir/$shape") || fail "dbus-daemon did not start"
    fx_track "$bus_pid"
    export DBUS_SESSION_BUS_ADDRESS=$address XDG_RUNTIME_DIR=$fx_dir/$shape
    control() { busctl --address="$address" call org.kde.KWin /FakeKWin io.github.blockerd.test.FakeKWin "$@"; }
    status() { "$bin/blockerctl" status --json | fx_json "$1"; }
    front() { status '(s["foreground"] or {}).get("app"), (s["foreground"] or {}).get("title"), s["probe"]["name"]'; }
    front_is() { [ "$(front 2>/dev/null)" = "$1" ]; }
    reports() { grep -c '^report ' "$log" || true; }

    gjs scripts/lib/fake-kwin-host.js "$shape" >"$log" 2>&1 &
    local host=$!
    fx_track $host
    wait_for 5 grep -q "owns org.kde.KWin" "$log" || fail "$shape: the fake KWin did not start"
    control AddWindow sssib editor texteditor "notes.txt" $$ true >/dev/null
    control AddWindow sssib chat blockermeter "general" $$ true >/dev/null
    control Activate s editor >/dev/null

    "$bin/blockerd" --config "$fx_dir/blocker.toml" --state-dir "$fx_dir/$shape" >"$fx_dir/blockerd-$shape.log" 2>&1 &
    local daemon=$!
    fx_track $daemon
    wait_for 10 front_is "texteditor notes.txt kde" \
        || fail "$shape: blockerd did not get the first report: $(front 2>&1); host: $(tail -n 3 "$log")"
    grep -q "^ran blocker$" "$log" || fail "$shape: blockerd did not load and run the script through org.kde.kwin.Scripting"
    ok "$shape: 1. blockerd loaded the script through the fake's Scripting; it reported the active window at start"

    control Activate s chat >/dev/null
    wait_for 5 front_is "blockermeter general kde" || fail "$shape: the activation of chat was not reported: $(front)"
    control SetCaption ss chat "random" >/dev/null
    wait_for 5 front_is "blockermeter random kde" || fail "$shape: the caption change was not reported: $(front)"
    # A burst of title changes is coalesced: the last title, in at most two reports.
    local burst_from
    burst_from=$(reports)
    for i in 1 2 3 4 5 6 7 8 9 10; do control SetCaption ss chat "tick $i" >/dev/null; done
    wait_for 5 front_is "blockermeter tick 10 kde" || fail "$shape: the last title of a burst was not reported: $(front)"
    sleep 0.3
    [ $(($(reports) - burst_from)) -le 2 ] || fail "$shape: 10 title changes made $(($(reports) - burst_from)) reports"
    control SetCaption ss chat "random" >/dev/null
    wait_for 5 front_is "blockermeter random kde" || fail "$shape: the caption change was not reported: $(front)"
    control SetCaption ss editor "hidden change" >/dev/null
    control Activate s editor >/dev/null
    wait_for 5 front_is "texteditor hidden change kde" || fail "$shape: the switch back to the editor was not reported: $(front)"
    sleep 0.3
    grep -q '"focused":false' "$log" && fail "$shape: a transient \"nothing in front\" was reported: $(grep '^report ' "$log")"
    ok "$shape: 2. activations and a caption change reported ($(reports) reports), no transient nothing"

    control Activate s "" >/dev/null
    wait_for 5 eval '[ "$(status "s[\"foreground\"]")" = None ]' || fail "$shape: nothing active was not reported: $(front)"
    ok "$shape: 3. nothing active is reported once it lasts"

    control Activate s chat >/dev/null
    wait_for 5 front_is "blockermeter random kde" || fail "$shape: chat was not reported: $(front)"
    control AddWindow sssib blocker-overlay blocker-overlay "" $$ true >/dev/null
    local pinned
    pinned=$(control Window s blocker-overlay | python3 -c "
import json, shlex, sys
w = json.loads(shlex.split(sys.stdin.read())[1])
print(all(w[k] for k in ('keepAbove', 'fullScreen', 'skipTaskbar', 'skipSwitcher', 'skipPager', 'onAllDesktops')))")
    [ "$pinned" = True ] || fail "$shape: the cover was not pinned: $(control Window s blocker-overlay)"
    local before
    before=$(reports)
    control Activate s blocker-overlay >/dev/null
    # The cover's activation is reported too, with its pid: blockerd knows its
    # real cover by its process (a blocker-overlay that said CoverShown), and
    # this one is a window of this shell called blocker-overlay, which any app
    # could be (issue 20, row 1).
    wait_for 5 eval '[ "$(reports)" -eq $((before + 1)) ]' ||
        fail "$shape: the cover's activation was not reported: $(grep '^report ' "$log" | tail -n 3)"
    control Activate s editor >/dev/null
    wait_for 5 eval '[ "$(reports)" -eq $((before + 3)) ]' ||
        fail "$shape: the editor and the cover taking the focus back were not both reported: $(grep '^report ' "$log" | tail -n 3)"
    grep '^report ' "$log" | tail -n 2 | head -n 1 | grep -q texteditor ||
        fail "$shape: the editor was not reported: $(grep '^report ' "$log" | tail -n 3)"
    wait_for 5 eval '[ "$(control Active)" = "s \"blocker-overlay\"" ]' \
        || fail "$shape: the cover did not get the focus back: $(control Active) is active"
    wait_for 5 eval '[ "$(status "(s[\"foreground\"] or {}).get(\"pid\")")" = $$ ]' ||
        fail "$shape: blockerd took a window called blocker-overlay of no checked cover for the cover: $(front)"
    wait_for 5 eval '[ "$(status "(s[\"foreground\"] or {}).get(\"pid\")")" = $$ ]' ||
        fail "$shape: a window called blocker-overlay that is no checked cover is not in front: $(front)"
    control RemoveWindow s blocker-overlay >/dev/null
    control Activate s chat >/dev/null
    wait_for 5 front_is "blockermeter random kde" || fail "$shape: with the cover gone, chat was not reported: $(front)"
    [ "$(control Active)" = 's "chat"' ] || fail "$shape: a removed cover still took the focus: $(control Active)"
    ok "$shape: 4. an ordinary-window cover is pinned, reported with its pid, and takes the focus back"

    grep -E "script error|failed" "$log" && fail "$shape: errors in the host's log"
    ok "$shape: 5. no script errors"

    local runs said hidden="/sys/fs/cgroup hidden"
    runs=$(grep -c "^ran blocker$" "$log")
    local install=(env KWIN=yes KPACKAGETOOL=none KWRITECONFIG=none scripts/install-kwin-script.sh install)
    if unshare -m true 2>/dev/null; then
        said=$(unshare -m sh -c 'mount -t tmpfs none /sys/fs/cgroup && exec "$@"' sh "${install[@]}" 2>&1) \
            || fail "$shape: install-kwin-script.sh install: $said"
    else
        hidden="/sys/fs/cgroup left as it is (unshare -m is not permitted here)"
        said=$("${install[@]}" 2>&1) || fail "$shape: install-kwin-script.sh install: $said"
    fi
    grep -q "loaded into the running KWin" <<<"$said" || fail "$shape: install-kwin-script.sh did not find KWin on the bus: $said"
    wait_for 5 eval '[ "$(grep -c "^ran blocker$" "$log")" -gt "$runs" ]' \
        || fail "$shape: install-kwin-script.sh said it loaded the script, but the host ran no new one"
    ok "$shape: 6. install-kwin-script.sh found KWin by NameHasOwner and loaded the script live ($hidden)"
    fx_stop $daemon
    fx_stop $host
}

python3 - extensions/kwin/contents/code/main.js <<'PY' || fail "main.js names a top-level const/let before its declaration"
import re, sys
lines = open(sys.argv[1]).read().split('\n')
declared = {}
for number, line in enumerate(lines):
    match = re.match(r'(?:const|let)\s+(\w+)', line)
    if match:
        declared.setdefault(match.group(1), number)
early = [f'{name} (line {at + 1}) on line {n + 1}' for name, at in declared.items()
         for n, line in enumerate(lines[:at]) if re.search(rf'\b{name}\b', line.split('//')[0])]
if early:
    sys.exit('\n'.join(early))
PY
ok "main.js: no top-level const/let is named before its declaration"

run_shape plasma6
run_shape plasma5
