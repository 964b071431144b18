# shellcheck shell=bash
# syncthing-env.sh — real Syncthing instances (Debian 12's 1.19) that keep
# test folders in step, for itest-sync.sh and itest-syncthing-env.sh,
# sourced after fixtures.sh's fx_begin.
#
# Each instance has a home of its own ($fx_dir/syncthing/NAME: keys, config,
# database), its log in $fx_dir/syncthing-NAME.log, and talks only on
# 127.0.0.1: the sync protocol on tcp://127.0.0.1:${st_port[NAME]}, the REST
# API on 127.0.0.1:${st_gui[NAME]} with the key ${st_key[NAME]}. The ports are
# picked at random below the kernel's ephemeral range (no outgoing connection
# takes one while an instance is stopped) and kept across st_restart. Global and
# local discovery, relays, NAT traversal, usage and crash reporting, upgrades
# and the browser are off: an instance meets only the peers st_share gives it.
# Of each pair one dials the other (see cmd_share); st_start of an instance
# that ran before has its peers dial it at once (not at their next try).
#
# What a peer's folder shows: Syncthing pulls a file into a temporary
# `.syncthing.NAME.tmp` beside it and renames it into place (a file appears
# whole); every shared folder holds Syncthing's marker directory `.stfolder`.
#
# The variables, by instance NAME: st_id (device ID), st_port (sync port),
# st_gui (REST port), st_key (API key), st_home, st_pid (empty once stopped).
# Call st_start and st_restart from the test's own shell, not in $(…): they
# fx_track the process.

declare -gA st_id=() st_port=() st_gui=() st_key=() st_home=() st_pid=()

# The Python side: config.xml, free ports and every REST call (urllib).
st_py=$(cat <<'PY'
import json, os, random, socket, sys, time, urllib.error, urllib.parse, urllib.request
import xml.etree.ElementTree as ET


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def registry():
    """ST_INSTANCES: a line "NAME ID GUI PORT KEY PID" per instance (PID - once stopped)."""
    reg = {}
    for line in os.environ.get("ST_INSTANCES", "").splitlines():
        if line.strip():
            name, dev, gui, port, key, pid = line.split()
            reg[name] = dict(name=name, id=dev, gui=gui, port=port, key=key,
                             running=pid != "-" and alive(pid))
    return reg


class ApiError(Exception):
    pass


def call(inst, method, path, body=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{inst['gui']}{path}", data=data, method=method,
                                 headers={"X-API-Key": inst["key"], "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read().decode()
    except urllib.error.HTTPError as e:
        raise ApiError(f"{method} {path} on {inst.get('name', '?')}: HTTP {e.code} {e.read().decode().strip()}")
    except (urllib.error.URLError, OSError) as e:
        raise ApiError(f"{method} {path} on {inst.get('name', '?')}: {e}")
    return json.loads(text) if text.strip() else None


def get_or_none(inst, path):
    try:
        return call(inst, "GET", path)
    except ApiError as e:
        if "HTTP 404" in str(e):
            return None
        raise


def q(value):
    return urllib.parse.quote(value, safe="")


def free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def cmd_ports(count, *exclude):
    """COUNT free ports on 127.0.0.1 below the ephemeral range, none of EXCLUDE."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    top = low - 1 if low > 11000 else 65535
    taken = {int(p) for p in exclude}
    found = []
    for _ in range(1000):
        port = random.randint(10000, top)
        if port not in taken and port not in found and free(port):
            found.append(port)
            if len(found) == int(count):
                print(*found)
                return
    sys.exit("no free ports")


def cmd_configure(home, name, port, gui, key):
    """A generated config.xml: on 127.0.0.1 only, nothing that calls out, quick to notice changes."""
    path = os.path.join(home, "config.xml")
    tree = ET.parse(path)
    root = tree.getroot()
    devices = root.findall("device")
    if len(devices) != 1:
        sys.exit(f"{path}: {len(devices)} devices, expected only this one")
    devices[0].set("name", name)
    ui = root.find("gui")
    ui.set("tls", "false")
    ui.find("address").text = f"127.0.0.1:{gui}"
    ui.find("apikey").text = key
    options = root.find("options")
    for listen in options.findall("listenAddress"):
        options.remove(listen)
    ET.SubElement(options, "listenAddress").text = f"tcp://127.0.0.1:{port}"
    for tag, value in {
        "globalAnnounceEnabled": "false", "localAnnounceEnabled": "false", "relaysEnabled": "false",
        "natEnabled": "false", "urAccepted": "-1", "urSeen": "3", "crashReportingEnabled": "false",
        "autoUpgradeIntervalH": "0", "startBrowser": "false", "restartOnWakeup": "false",
        "announceLANAddresses": "false", "setLowPriority": "false", "reconnectionIntervalS": "5",
    }.items():
        element = options.find(tag)
        if element is None:
            element = ET.SubElement(options, tag)
        element.text = value
    folder = root.find("defaults/folder")
    if folder is not None:
        folder.set("rescanIntervalS", "10")
        folder.set("fsWatcherDelayS", "1")
    tree.write(path)


def cmd_up(gui, key, pid, seconds):
    """Until the REST API answers (the instance's PID alive), then prints its device ID."""
    inst = dict(name="the new instance", gui=gui, key=key)
    deadline = time.monotonic() + float(seconds)
    last = "no answer yet"
    while time.monotonic() < deadline:
        if not alive(pid):
            sys.exit(f"syncthing (pid {pid}) exited")
        try:
            if call(inst, "GET", "/rest/system/ping", timeout=2).get("ping") == "pong":
                print(call(inst, "GET", "/rest/system/status")["myID"])
                return
        except ApiError as e:
            last = str(e)
        time.sleep(0.1)
    sys.exit(f"its REST API did not answer within {seconds} s ({last})")


def cmd_api(name, method, path, body=None):
    result = call(registry()[name], method, path, None if body is None else json.loads(body))
    if result is not None:
        print(json.dumps(result, indent=1))


def cmd_scan(name, folder):
    call(registry()[name], "POST", f"/rest/db/scan?folder={q(folder)}", timeout=120)


def cmd_share(folder, *pairs):
    """Each NAME PATH: knows the other NAMEs as devices and shares FOLDER with them at PATH."""
    reg = registry()
    names = list(pairs[0::2])
    paths = dict(zip(pairs[0::2], pairs[1::2]))
    for name in names:
        if name not in reg or not reg[name]["running"]:
            sys.exit(f"{name} is not a running instance (st_start {name})")
    known = {name: {d["deviceID"] for d in call(reg[name], "GET", "/rest/config/devices")} for name in names}

    def add(inst, peer, addresses):
        if peer["id"] not in known[inst["name"]]:
            call(inst, "PUT", f"/rest/config/devices/{q(peer['id'])}", {
                "deviceID": peer["id"], "name": peer["name"], "addresses": addresses,
                "introducer": False, "autoAcceptFolders": False, "paused": False})

    # Of each pair only the one named first dials (the other has it as
    # "dynamic": with discovery off, never dialled): two instances dialling
    # each other at once (each does as soon as it learns of the other) stalled
    # both for 20 s (Hello exchanges timing out). The one that waits learns of
    # the dialler first: a connection from a device not known yet is refused.
    ordered = [(reg[a], reg[b]) for i, a in enumerate(names) for b in names[i + 1:]]
    for dialler, waiter in ordered:
        add(waiter, dialler, ["dynamic"])
    for dialler, waiter in ordered:
        add(dialler, waiter, [f"tcp://127.0.0.1:{waiter['port']}"])
    for name in names:
        me = reg[name]
        others = [reg[n] for n in names if n != name]
        wanted = [me["id"]] + [p["id"] for p in others]
        existing = get_or_none(me, f"/rest/config/folders/{q(folder)}")
        if existing is None:
            call(me, "PUT", f"/rest/config/folders/{q(folder)}", {
                "id": folder, "label": folder, "path": os.path.abspath(paths[name]), "type": "sendreceive",
                "devices": [{"deviceID": d} for d in wanted],
                "fsWatcherEnabled": True, "fsWatcherDelayS": 1, "rescanIntervalS": 10, "paused": False})
        else:
            have = [d["deviceID"] for d in existing["devices"]]
            missing = [d for d in wanted if d not in have]
            if missing:
                call(me, "PATCH", f"/rest/config/folders/{q(folder)}",
                     {"devices": existing["devices"] + [{"deviceID": d} for d in missing]})


def cmd_redial(name):
    """Every running instance that dials NAME does so now (pausing and resuming it), not at its next
    try (5 s or more after the last): NAME has just started again."""
    reg = registry()
    me = reg[name]
    for inst in reg.values():
        if inst is me or not inst["running"]:
            continue
        for dev in call(inst, "GET", "/rest/config/devices"):
            if dev["deviceID"] == me["id"] and dev["addresses"] != ["dynamic"]:
                call(inst, "POST", f"/rest/system/pause?device={q(me['id'])}")
                call(inst, "POST", f"/rest/system/resume?device={q(me['id'])}")


def cmd_wait_synced(name, folder, seconds):
    """Until NAME is idle, needs nothing, and every running peer sharing FOLDER is connected, has
    everything (completion 100) and NAME holds its whole index (the peer's own sequence). Scans
    NAME and those peers once first: what is on disk now is counted, whatever the watchers do."""
    reg = registry()
    me = reg[name]
    by_id = {inst["id"]: inst for inst in reg.values()}
    deadline = time.monotonic() + float(seconds)

    def peers():
        fcfg = get_or_none(me, f"/rest/config/folders/{q(folder)}")
        if fcfg is None:
            raise ApiError(f"{name} has no folder {folder}")
        return [d["deviceID"] for d in fcfg["devices"] if d["deviceID"] != me["id"]]

    def label(dev):
        return by_id[dev]["name"] if dev in by_id else dev[:7]

    seen = "nothing yet"
    scanned = False
    skipped = []
    while True:
        problems = []
        try:
            ids = peers()
            if not scanned:
                for inst in [me] + [by_id[d] for d in ids if d in by_id and by_id[d]["running"]]:
                    if get_or_none(inst, f"/rest/config/folders/{q(folder)}") is not None:
                        call(inst, "POST", f"/rest/db/scan?folder={q(folder)}", timeout=max(1, deadline - time.monotonic()))
                scanned = True
            status = call(me, "GET", f"/rest/db/status?folder={q(folder)}")
            if status["state"] != "idle":
                problems.append(f"{name} is {status['state']}")
            if status["needTotalItems"]:
                problems.append(f"{name} needs {status['needTotalItems']} items")
            if status["errors"]:
                problems.append(f"{name} has {status['errors']} pull errors")
            connections = call(me, "GET", "/rest/system/connections")["connections"]
            skipped = []
            for dev in ids:
                peer = by_id.get(dev)
                if peer is not None and not peer["running"]:
                    skipped.append(peer["name"])
                    continue
                if not connections.get(dev, {}).get("connected"):
                    problems.append(f"{name} is not connected to {label(dev)}")
                    continue
                comp = call(me, "GET", f"/rest/db/completion?folder={q(folder)}&device={q(dev)}")
                if comp["completion"] < 100 or comp["needItems"]:
                    problems.append(f"{label(dev)} is at {comp['completion']:.0f}% ({comp['needItems']} items to get) as {name} sees it")
                if peer is None:
                    continue
                own = get_or_none(peer, f"/rest/db/completion?folder={q(folder)}")
                if own is None:
                    problems.append(f"{peer['name']} does not share {folder}")
                elif own["sequence"] != comp["sequence"]:
                    problems.append(f"{name} has {peer['name']}'s index up to {comp['sequence']}, {peer['name']} is at {own['sequence']}")
            seen = "; ".join(problems)
        except ApiError as e:
            problems.append(str(e))
            seen = str(e)
        if not problems:
            print(f"{status['globalFiles']} files, {status['globalBytes']} bytes"
                  + (f" (not counting {', '.join(skipped)}: stopped)" if skipped else ""))
            return
        if time.monotonic() >= deadline:
            sys.exit(f"not in step within {seconds} s: {seen}")
        time.sleep(0.2)


commands = {"ports": cmd_ports, "configure": cmd_configure, "up": cmd_up, "api": cmd_api,
            "scan": cmd_scan, "share": cmd_share, "redial": cmd_redial, "wait-synced": cmd_wait_synced}
try:
    commands[sys.argv[1].replace("_", "-")](*sys.argv[2:])
except ApiError as e:
    sys.exit(str(e))
PY
)

# st_python COMMAND ARGS… — the Python side, with the instances (ST_INSTANCES) in its environment.
st_python() {
    local name lines=
    for name in "${!st_id[@]}"; do
        lines+="$name ${st_id[$name]} ${st_gui[$name]} ${st_port[$name]} ${st_key[$name]} ${st_pid[$name]:--}"$'\n'
    done
    ST_INSTANCES=$lines python3 -c "$st_py" "$@"
}

# st_start NAME — starts instance NAME (a new home the first time: keys, config,
# ports; the same ones after st_stop) and returns once its REST API answers (30 s).
st_start() {
    local name=$1 home=$fx_dir/syncthing/$1 log=$fx_dir/syncthing-$1.log out pid id
    if [ ! -e "$home/config.xml" ]; then
        mkdir -p "$home"
        syncthing generate --home="$home" --no-default-folder --skip-port-probing >>"$log" 2>&1 ||
            fail "syncthing generate for $name failed (see syncthing-$name.log)"
        # shellcheck disable=SC2046 # the ports of the other instances, one word each
        out=$(st_python ports 2 $(printf '%s ' "${st_port[@]}" "${st_gui[@]}")) || fail "no free ports for $name's Syncthing"
        st_port[$name]=${out% *}
        st_gui[$name]=${out#* }
        st_key[$name]=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
        st_python configure "$home" "$name" "${st_port[$name]}" "${st_gui[$name]}" "${st_key[$name]}" ||
            fail "could not write $home/config.xml"
    fi
    st_home[$name]=$home
    echo "--- st_start $name $(date -u +%T.%N)" >>"$log"
    # STMONITORED=1: Syncthing itself, without the monitor process 1.19 puts
    # above it even with --no-restart (stopping the monitor by SIGKILL would
    # leave Syncthing running). STHASHING: no benchmark of two SHA-256
    # implementations at each start (a second of CPU).
    env -u STGUIADDRESS -u STGUIAPIKEY -u STHOMEDIR -u STCONFDIR -u STDATADIR \
        STMONITORED=1 STNODEFAULTFOLDER=1 STNOUPGRADE=1 STHASHING=standard \
        syncthing serve --home="$home" --no-browser --no-restart --no-upgrade >>"$log" 2>&1 &
    pid=$!
    fx_track "$pid"
    st_pid[$name]=$pid
    id=$(st_python up "${st_gui[$name]}" "${st_key[$name]}" "$pid" 30 2>&1) ||
        fail "Syncthing $name (pid $pid, REST on 127.0.0.1:${st_gui[$name]}): $id; its log: $log"
    st_id[$name]=$id
    st_python redial "$name" || fail "Syncthing $name is up, but the peers that dial it could not be told to"
}

# st_stop NAME — stops instance NAME (SIGTERM, by PID: fx_stop); its home stays.
st_stop() {
    [ -n "${st_pid[$1]:-}" ] || return 0
    fx_stop "${st_pid[$1]}"
    st_pid[$1]=
}

# st_restart NAME — st_stop, then st_start on the same home, ports and device ID.
st_restart() {
    st_stop "$1"
    st_start "$1"
}

# st_share FOLDER_ID NAME PATH [NAME PATH]… — each NAME knows the others as
# devices (no introducer, no auto-accept; of each pair the one named first
# dials the other at tcp://127.0.0.1:PORT) and shares FOLDER_ID with them at
# its own PATH (sendreceive, watcher after 1 s, rescan every 10 s). Again later
# with a new NAME (a device joining): the instances that already share
# FOLDER_ID add it to their folder (their PATH is kept), e.g.
# `st_share blk C "$c" A "$a" B "$b"`.
st_share() {
    local folder=$1 i names=()
    shift
    [ $(($# % 2)) -eq 0 ] && [ $# -ge 4 ] || fail "st_share FOLDER_ID NAME PATH NAME PATH…: got $*"
    for ((i = 1; i < $#; i += 2)); do
        names+=("${!i}")
        mkdir -p "${@:i+1:1}"
    done
    st_python share "$folder" "$@" || fail "st_share $folder: could not share it between ${names[*]}"
}

# st_wait_synced NAME FOLDER_ID [SECONDS] — until NAME is in step with every
# running peer sharing FOLDER_ID (scans them once first; see cmd_wait_synced);
# fails after SECONDS (30) saying what it saw.
st_wait_synced() {
    local out
    out=$(st_python wait-synced "$1" "$2" "${3:-30}" 2>&1) || fail "st_wait_synced $1 $2: $out"
    fx_note "$1 in step on $2: $out"
}

# st_rescan NAME FOLDER_ID — NAME scans the folder now; returns once the scan is done.
st_rescan() { st_python scan "$1" "$2" || fail "st_rescan $1 $2 failed"; }

# st_api NAME METHOD PATH [JSON] — a REST call to NAME; prints the JSON it answers.
st_api() { st_python api "$@"; }
