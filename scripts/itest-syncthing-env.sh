#!/usr/bin/env bash
# itest-syncthing-env.sh — lib/syncthing-env.sh on real Syncthing (Debian's
# 1.19), the fixture itest-sync.sh keeps blockerd's folders in step with:
#
#   1. instances A and B start on 127.0.0.1 only and share a folder;
#   2. a file written in A's folder appears in B's, whole; an append reaches B;
#   3. B stopped, A writes (an append, a new file), B restarted catches up;
#   4. C, started later and added to the share, receives the existing files,
#      and a file written in C reaches A and B;
#   5. every instance stops when asked (no process left).
# Each step prints how long it took. Exit 0 pass, 1 fail.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
fx_begin syncthing-env
fx_need syncthing python3
# shellcheck source=lib/syncthing-env.sh
source scripts/lib/syncthing-env.sh
fx_fail_on_error
started=$(fx_now_ms)

# holds FILE TEXT — whether FILE holds exactly TEXT (and a newline).
holds() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
# await SECONDS WHAT FILE TEXT — until FILE holds TEXT; fails naming WHAT and what FILE holds.
await() {
    local held
    fx_wait "$1" holds "$3" "$4" && return 0
    held=$(head -c 200 "$3" 2>/dev/null) || held="(no such file)"
    fail "$2: after $1 s ${3#"$fx_dir"/} holds '$held', not '$4'"
}
# listening_of PID — PID's listening TCP and bound UDP sockets ("tcp ADDR:PORT"…, sorted, on one line), from /proc.
listening_of() {
    python3 - "$1" <<'PY'
import os, socket, struct, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir(f"/proc/{pid}/fd"):
    try:
        target = os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:  # closed meanwhile
        continue
    if target.startswith("socket:["):
        inodes.add(target[8:-1])
found = []
for proto in ("tcp", "tcp6", "udp", "udp6"):
    with open(f"/proc/{pid}/net/{proto}") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[9] not in inodes or (proto.startswith("tcp") and fields[3] != "0A"):
                continue
            hexaddr, hexport = fields[1].split(":")
            raw = bytes.fromhex(hexaddr)
            if len(raw) == 4:
                addr = socket.inet_ntop(socket.AF_INET, struct.pack("<I", struct.unpack(">I", raw)[0]))
            else:
                addr = "[" + socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))) + "]"
            found.append(f"{proto.rstrip('6')} {addr}:{int(hexport, 16)}")
print(" ".join(sorted(found)))
PY
}
# since MS — the milliseconds since MS (fx_now_ms).
since() { echo $(($(fx_now_ms) - $1)); }

a=$fx_dir/a b=$fx_dir/b c=$fx_dir/c

# 1. A and B, one folder.
t=$(fx_now_ms)
st_start A
st_start B
ok "A and B answer in $(since "$t") ms (A ${st_id[A]:0:7} sync :${st_port[A]} REST :${st_gui[A]}, B ${st_id[B]:0:7} sync :${st_port[B]} REST :${st_gui[B]})"
for name in A B; do
    listening=$(listening_of "${st_pid[$name]}")
    [ "$listening" = "$(printf 'tcp 127.0.0.1:%s\n' "${st_gui[$name]}" "${st_port[$name]}" | sort | paste -sd' ')" ] ||
        fail "$name listens on '$listening', not only on 127.0.0.1:${st_port[$name]} and :${st_gui[$name]}"
done
ok "each listens only on 127.0.0.1 (its sync and REST ports, TCP), nothing on UDP"
t=$(fx_now_ms)
st_share blk A "$a" B "$b"
st_wait_synced A blk 30
st_wait_synced B blk 30
ok "A and B share blk, connected and in step in $(since "$t") ms"

# 2. A file, then an append.
t=$(fx_now_ms)
echo one >"$a/note.txt"
await 30 "the new file in B" "$b/note.txt" one
ok "a new file in A appeared in B in $(since "$t") ms"
t=$(fx_now_ms)
echo two >>"$a/note.txt"
await 30 "the append in B" "$b/note.txt" $'one\ntwo'
ok "an append in A reached B in $(since "$t") ms"

# 3. B away while A writes.
pid_b=${st_pid[B]}
t=$(fx_now_ms)
st_stop B
! fx_alive "$pid_b" || fail "B's syncthing (pid $pid_b) still runs after st_stop"
ok "B stopped in $(since "$t") ms"
echo three >>"$a/note.txt"
echo "written while B was stopped" >"$a/while-b-down.txt"
st_wait_synced A blk 30
t=$(fx_now_ms)
st_restart B
up=$(since "$t")
await 30 "B's catch-up (the append)" "$b/note.txt" $'one\ntwo\nthree'
await 30 "B's catch-up (the new file)" "$b/while-b-down.txt" "written while B was stopped"
ok "B restarted (API up in $up ms) caught up $(since "$t") ms after the restart began"
st_wait_synced B blk 30

# 4. C joins the share later.
t=$(fx_now_ms)
st_start C
st_share blk C "$c" A "$a" B "$b"
await 30 "C's first sync" "$c/note.txt" $'one\ntwo\nthree'
await 30 "C's first sync" "$c/while-b-down.txt" "written while B was stopped"
ok "C, started and added later, received the existing files $(since "$t") ms after its start"
t=$(fx_now_ms)
echo "from C" >"$c/from-c.txt"
await 30 "C's file in A" "$a/from-c.txt" "from C"
await 30 "C's file in B" "$b/from-c.txt" "from C"
ok "a file written in C reached A and B in $(since "$t") ms"
for name in A B C; do st_wait_synced "$name" blk 30; done
leftover=$(find "$a" "$b" "$c" -name '.syncthing.*.tmp')
[ -z "$leftover" ] || fail "temporary files left: $leftover"
ok "A, B and C in step, no temporary file left"

# 5. Stopping.
pids=("${st_pid[@]}")
for name in A B C; do st_stop "$name"; done
for pid in "${pids[@]}"; do ! fx_alive "$pid" || fail "syncthing pid $pid still runs after st_stop"; done
ok "all three stopped (pids ${pids[*]}); the whole run took $(since "$started") ms"
