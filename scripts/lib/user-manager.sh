# shellcheck shell=bash
# user-manager.sh — a real `systemd --user` manager and `systemd-journald` for
# integration tests, inside a private mount namespace. Source it from bash.
#
#   source scripts/lib/user-manager.sh
#   um_enter "$@"          # first line: re-runs this script inside `unshare --mount`
#   um_start               # test user, journald, systemd --user; cleanup on EXIT
#   um_write .config/systemd/user/x.service < x.service
#   um_systemctl daemon-reload && um_systemctl start x.service
#   um_wait_active x.service 10
#   um_wait_journal 5 _SYSTEMD_USER_UNIT=x.service
#
# API: um_enter, um_start, um_stop, um_run, um_root, um_systemctl, um_show,
# um_write, um_install, um_wait_active, um_journal, um_journal_json,
# um_wait_journal, um_verify (each documented where defined); it sources
# fixtures.sh, whose fx_wait, fail and ok the scripts use with it.
# um_start exports UM_USER, UM_UID, UM_GID, UM_HOME, UM_RUNTIME
# (XDG_RUNTIME_DIR), UM_BUS (DBUS_SESSION_BUS_ADDRESS), UM_UNIT_DIR
# (~/.config/systemd/user), and sets UM_MANAGER_PID, UM_JOURNALD_PID.
#
# How it works
# - um_enter re-executes the script under `unshare --mount --propagation
#   private`, so every mount below is private to this run and vanishes with it.
# - um_start takes a global lock (/run/lock/blocker-user-manager.lock: one run
#   at a time, since the cgroup paths are fixed), kills and removes whatever a
#   run killed mid-way left in our cgroups, then mounts tmpfs over /run/systemd
#   (+ /run/systemd/system, so tools believe systemd runs), /run/log, /run/user,
#   /var/log/journal and the test user's home (fresh and empty every run).
# - journald runs as root in user.slice/user-UID.slice/harness-journald.scope.
#   It is socket-activated with its stdout socket only: started with no socket
#   it would open the kernel audit socket and switch auditing on machine-wide.
#   Its config (/run/systemd/journald.conf.d): persistent storage (on the
#   tmpfs, so user-UID.journal files exist and `journalctl --user` works as
#   the test user), no kmsg, no wall messages, no rate limit.
# - `systemd --user` runs as the test user (setpriv, no PAM, no logind) in the
#   delegated cgroup user.slice/user-UID.slice/user@UID.service, so journald
#   derives _SYSTEMD_USER_UNIT for its services, and Type=notify, WatchdogSec=,
#   Restart= and timers are the real thing. Its dbus.socket gives a real
#   session bus at $XDG_RUNTIME_DIR/bus.
# - um_run puts its commands in harness-run.scope, so anything they leave
#   behind is killed too. um_stop (also run by the EXIT trap, pass or fail)
#   stops the manager, kills the whole user-UID.slice with cgroup.kill, removes
#   the cgroups and unmounts. On failure the trap first prints the journal.
#
# Safety: only `systemd --user` as an unprivileged user is ever started, never
# `systemd --system` (it would pull sysinit.target, wipe /tmp and set sysctls
# for the whole machine). um_start refuses to mount anything unless it is in
# the namespace um_enter made.
#
# Needs: root; cgroup v2 (pure, or hybrid with /sys/fs/cgroup/unified and the
# name=systemd v1 hierarchy); Debian packages systemd (systemd, journald,
# systemctl, systemd-socket-activate, systemd-analyze), dbus-user-session and
# dbus-daemon (the session bus), util-linux (unshare, setpriv, flock),
# passwd (useradd), bsdutils (logger, used by the self-test).
#
# Creates, once, the user $UM_USER (default blocker-test, a normal uid, member
# of systemd-journal so `journalctl --user` works for it).

# shellcheck source=fixtures.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixtures.sh"

UM_USER=${UM_USER:-blocker-test}
UM_LOCK_FILE=${UM_LOCK_FILE:-/run/lock/blocker-user-manager.lock}

um__die() { echo "user-manager: error: $*" >&2; exit 1; }
um__log() { echo "user-manager: $*" >&2; }

# um_enter "$@" — re-executes the calling script inside a private mount
# namespace; returns at once when already inside it.
um_enter() {
    if [ -n "${UM_NAMESPACE:-}" ] && [ "$UM_NAMESPACE" = "$(readlink /proc/self/ns/mnt)" ]; then
        return 0
    fi
    [ "$(id -u)" -eq 0 ] || um__die "must run as root (to mount, make cgroups and switch to the test user)"
    local trace=()
    [[ $- == *x* ]] && trace=(-x) # keep `bash -x script` tracing after the re-exec
    # shellcheck disable=SC2016
    exec unshare --mount --propagation private -- "$BASH" -c \
        'export UM_NAMESPACE=$(readlink /proc/self/ns/mnt); exec "$BASH" "$@"' \
        "$BASH" "${trace[@]}" "$0" "$@"
}

# --- cgroups -------------------------------------------------------------

# Fills UM__CG_ROOTS (every hierarchy a process must join) and UM__CG_V2 (the
# cgroup2 one, for cgroup.kill and cgroup.events).
um__cgroup_layout() {
    UM__CG_ROOTS=()
    UM__CG_V2=""
    if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
        UM__CG_V2=/sys/fs/cgroup
    else
        # Hybrid: systemd tracks processes in the name=systemd v1 hierarchy
        # (journald reads /proc/PID/cgroup from there) and mirrors it in v2.
        [ -e /sys/fs/cgroup/systemd/cgroup.procs ] && UM__CG_ROOTS+=(/sys/fs/cgroup/systemd)
        [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] && UM__CG_V2=/sys/fs/cgroup/unified
    fi
    [ -n "$UM__CG_V2" ] || um__die "no cgroup2 hierarchy (need /sys/fs/cgroup or /sys/fs/cgroup/unified as cgroup2)"
    UM__CG_ROOTS+=("$UM__CG_V2")
    UM__SLICE="user.slice/user-$UM_UID.slice"
}

# um__join_cgroup NAME — moves the current (sub)shell into
# user-UID.slice/NAME in every hierarchy; exec the real program afterwards.
um__join_cgroup() {
    local root
    for root in "${UM__CG_ROOTS[@]}"; do
        echo "$BASHPID" >"$root/$UM__SLICE/$1/cgroup.procs" || return 1
    done
}

um__make_cgroups() {
    local root name
    for root in "${UM__CG_ROOTS[@]}"; do
        for name in "user@$UM_UID.service" harness-journald.scope harness-run.scope; do
            mkdir -p "$root/$UM__SLICE/$name"
        done
        # Delegation: the manager creates and moves processes below its own
        # cgroup, so it must own the directory and its interface files.
        chown -R "$UM_UID:$UM_GID" "$root/$UM__SLICE/user@$UM_UID.service"
    done
}

# Kills every process in user-UID.slice (ours, or left by a killed run) and
# removes the cgroups. Idempotent.
um__kill_cgroups() {
    local root slice="user.slice/user-$UM_UID.slice" i pids
    if [ -d "$UM__CG_V2/$slice" ]; then
        echo 1 >"$UM__CG_V2/$slice/cgroup.kill" 2>/dev/null || true
        for ((i = 0; i < 100; i++)); do
            grep -q '^populated 0' "$UM__CG_V2/$slice/cgroup.events" 2>/dev/null && break
            sleep 0.05
        done
    fi
    for root in "${UM__CG_ROOTS[@]}"; do
        [ -d "$root/$slice" ] || continue
        # A v1 hierarchy has no cgroup.kill; anything still listed there was
        # put there by us, so kill it by PID.
        for ((i = 0; i < 100; i++)); do
            pids=$(find "$root/$slice" -name cgroup.procs -exec cat {} + 2>/dev/null)
            [ -z "$pids" ] && break
            # shellcheck disable=SC2086
            kill -9 $pids 2>/dev/null || true
            sleep 0.05
        done
        find "$root/$slice" -depth -type d -exec rmdir {} + 2>/dev/null || true
        [ -d "$root/$slice" ] && um__log "could not remove cgroup $root/$slice"
        rmdir "$root/user.slice" 2>/dev/null || true # only when no other user left one
    done
    return 0
}

# --- the test user -------------------------------------------------------

um__ensure_user() {
    if ! getent passwd "$UM_USER" >/dev/null; then
        um__log "creating test user $UM_USER"
        useradd --comment "blocker integration tests (scripts/lib/user-manager.sh)" \
            --home-dir "/home/$UM_USER" --no-create-home --shell /bin/bash \
            --user-group --groups systemd-journal "$UM_USER" || um__die "useradd $UM_USER failed"
    fi
    id -nG "$UM_USER" | tr ' ' '\n' | grep -qx systemd-journal || usermod -aG systemd-journal "$UM_USER"
    UM_UID=$(id -u "$UM_USER")
    UM_GID=$(id -g "$UM_USER")
    UM_HOME=$(getent passwd "$UM_USER" | cut -d: -f6)
    [ "$UM_UID" -ne 0 ] || um__die "the test user must not be root"
    UM_RUNTIME=/run/user/$UM_UID
    UM_BUS=unix:path=$UM_RUNTIME/bus
    UM_UNIT_DIR=$UM_HOME/.config/systemd/user
    export UM_USER UM_UID UM_GID UM_HOME UM_RUNTIME UM_BUS UM_UNIT_DIR
    # What user@.service would give the manager (its services inherit it)…
    UM__MANAGER_ENV=(HOME="$UM_HOME" USER="$UM_USER" LOGNAME="$UM_USER" SHELL=/bin/bash
        PATH="$UM_HOME/.local/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8
        XDG_RUNTIME_DIR="$UM_RUNTIME" DBUS_SESSION_BUS_ADDRESS="$UM_BUS")
    # …and for commands run with um_run, plain output too.
    UM__USER_ENV=("${UM__MANAGER_ENV[@]}" SYSTEMD_PAGER= SYSTEMD_COLORS=0)
}

# --- mounts --------------------------------------------------------------

um__mount_tmpfs() { # DIR OPTIONS
    mkdir -p "$1"
    mount -t tmpfs -o "$2" harness-tmpfs "$1" || um__die "mount tmpfs on $1 failed"
    UM__MOUNTS+=("$1")
}

um__make_mounts() {
    local machine_id
    UM__MOUNTS=()
    mkdir -p "$UM_HOME"
    um__mount_tmpfs /run/systemd mode=0755,nosuid,nodev
    um__mount_tmpfs /run/log mode=0755,nosuid,nodev
    um__mount_tmpfs /run/user mode=0755,nosuid,nodev
    um__mount_tmpfs /var/log/journal mode=2755,nosuid,nodev
    um__mount_tmpfs "$UM_HOME" "mode=0700,uid=$UM_UID,gid=$UM_GID,nosuid,nodev"
    mkdir -p /run/systemd/system /run/systemd/journal /run/systemd/journald.conf.d "$UM__STATE"
    install -d -m 0700 -o "$UM_UID" -g "$UM_GID" "$UM_RUNTIME"
    # Persistent storage (on the tmpfs) from the first line: only then does
    # journald split user-UID.journal files off, which `journalctl --user`
    # needs. The "flushed" flag stands for systemd-journal-flush.service.
    # Directories as systemd-tmpfiles sets them up: group systemd-journal.
    machine_id=$(cat /etc/machine-id)
    install -d -m 2755 -g systemd-journal /var/log/journal "/var/log/journal/$machine_id" \
        /run/log/journal "/run/log/journal/$machine_id"
    : >/run/systemd/journal/flushed
    local d
    for d in .config/systemd/user .local/bin .local/state .cache; do
        install -d -m 0755 -o "$UM_UID" -g "$UM_GID" "$UM_HOME/$d"
    done
    chown "$UM_UID:$UM_GID" "$UM_HOME/.config" "$UM_HOME/.config/systemd" "$UM_HOME/.local"
    cat >/run/systemd/journald.conf.d/harness.conf <<'EOF'
[Journal]
Storage=persistent
ReadKMsg=no
ForwardToSyslog=no
ForwardToKMsg=no
ForwardToConsole=no
ForwardToWall=no
RateLimitIntervalSec=0
EOF
}

um__unmount_all() {
    local i
    for ((i = ${#UM__MOUNTS[@]} - 1; i >= 0; i--)); do
        umount "${UM__MOUNTS[i]}" 2>/dev/null || umount -l "${UM__MOUNTS[i]}" ||
            um__log "could not unmount ${UM__MOUNTS[i]}"
    done
    UM__MOUNTS=()
}

# --- start / stop --------------------------------------------------------

um__journald_up() { journalctl --no-pager -q -t um-harness MESSAGE="journald up" 2>/dev/null | grep -q .; }

um__manager_up() {
    local state
    state=$(um_run systemctl --user is-system-running 2>/dev/null) || true
    [ "$state" = running ] || [ "$state" = degraded ]
}

um__start_journald() {
    (
        um__join_cgroup harness-journald.scope || exit 1
        um__close_lock
        # Handing it the stdout socket keeps journald away from audit (see top).
        exec systemd-socket-activate -l /run/systemd/journal/stdout \
            /lib/systemd/systemd-journald </dev/null
    ) >"$UM__STATE/journald.log" 2>&1 &
    UM_JOURNALD_PID=$!
    disown "$UM_JOURNALD_PID" # no "Killed" job notice at the end
    fx_wait 5 test -S /run/systemd/journal/stdout || um__die "journald's stdout socket did not appear"
    # Made with the umask by systemd-socket-activate; services of every user
    # must be able to connect (journald makes its own sockets 0666 too).
    chmod 0666 /run/systemd/journal/stdout
    # systemd-socket-activate execs journald on the first connection: this one.
    echo "journald up" | systemd-cat -t um-harness || um__die "systemd-cat failed"
    fx_wait 10 um__journald_up || um__die "journald did not log (see $UM__STATE/journald.log)"
}

um__start_manager() {
    (
        um__join_cgroup "user@$UM_UID.service" || exit 1
        cd "$UM_HOME" || exit 1
        um__close_lock
        exec setpriv --reuid="$UM_UID" --regid="$UM_GID" --init-groups -- \
            env -i "${UM__MANAGER_ENV[@]}" /lib/systemd/systemd --user --log-target=journal </dev/null
    ) >"$UM__STATE/manager.log" 2>&1 &
    UM_MANAGER_PID=$!
    disown "$UM_MANAGER_PID"
    fx_wait 20 um__manager_up || um__die "systemd --user did not start (see $UM__STATE/manager.log)"
    fx_wait 5 test -S "$UM_RUNTIME/bus" || um__die "no session bus socket at $UM_RUNTIME/bus"
}

# um_start — test user, mounts, cgroups, journald and systemd --user.
um_start() {
    [ "$(id -u)" -eq 0 ] || um__die "must run as root"
    if [ -z "${UM_NAMESPACE:-}" ] || [ "$UM_NAMESPACE" != "$(readlink /proc/self/ns/mnt)" ] ||
        [ "$UM_NAMESPACE" = "$(readlink /proc/1/ns/mnt)" ]; then
        um__die "not inside the private mount namespace: call um_enter \"\$@\" first"
    fi
    [ -z "${UM__STARTED:-}" ] || um__die "um_start called twice"
    UM__STARTED=1
    UM__STATE=/run/systemd/harness # on our tmpfs: gone with the namespace
    UM__MOUNTS=()

    # Cleanup from here on, whatever happens; chain any EXIT trap the caller set.
    UM__CALLER_EXIT_TRAP=$(um__trap_command "$(trap -p EXIT)")
    trap um__on_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP

    exec {UM__LOCK_FD}>>"$UM_LOCK_FILE"
    if ! flock -n "$UM__LOCK_FD"; then
        um__log "waiting for another test run to finish (lock $UM_LOCK_FILE)"
        flock -w 300 "$UM__LOCK_FD" || um__die "lock $UM_LOCK_FILE still held after 300 s"
    fi

    um__ensure_user
    um__cgroup_layout
    um__kill_cgroups # whatever a killed run left behind
    um__make_mounts
    um__make_cgroups
    um__start_journald
    um__start_manager
    um__log "systemd --user (pid $UM_MANAGER_PID) and journald (pid $UM_JOURNALD_PID) up for $UM_USER ($UM_UID)"
}

# um_stop — stops everything um_start started; idempotent.
um_stop() {
    local -
    set +e # cleanup goes on whatever fails
    [ -n "${UM__STARTED:-}" ] || return 0
    if [ -n "${UM_MANAGER_PID:-}" ] && kill -0 "$UM_MANAGER_PID" 2>/dev/null; then
        # SIGTERM: the manager stops its units (they log their stop) and exits.
        kill -TERM "$UM_MANAGER_PID" 2>/dev/null
        fx_wait 5 um__not_running "$UM_MANAGER_PID" || um__log "systemd --user ignored SIGTERM; killing it"
    fi
    [ -n "${UM__CG_V2:-}" ] && um__kill_cgroups
    um__unmount_all
    um__close_lock
    UM__STARTED="" UM_MANAGER_PID="" UM_JOURNALD_PID=""
    return 0
}

# Children must not hold the lock: a daemon that outlived a killed run would
# keep the next run waiting instead of letting it clean up.
um__close_lock() {
    if [ -n "${UM__LOCK_FD:-}" ]; then exec {UM__LOCK_FD}>&-; fi
    UM__LOCK_FD=""
}

# um__trap_command "$(trap -p SIG)" — the command of a `trap -p` line.
um__trap_command() {
    eval "set -- $1"
    printf '%s' "${3:-}"
}

um__not_running() { ! fx_alive "$1"; }

um__on_exit() {
    local rc=$?
    set +e
    trap - EXIT
    if [ -n "$UM__CALLER_EXIT_TRAP" ]; then eval "$UM__CALLER_EXIT_TRAP"; fi
    if [ "$rc" -ne 0 ] && [ -n "${UM__STARTED:-}" ] && [ -d "${UM__STATE:-/nonexistent}" ]; then
        {
            echo "----- user-manager: exit $rc; last journal lines:"
            journalctl --no-pager -n 60 -o short-precise 2>&1
            echo "----- systemd --user stderr:"
            tail -n 20 "$UM__STATE/manager.log" 2>&1
            echo "----- journald stderr:"
            tail -n 20 "$UM__STATE/journald.log" 2>&1
            echo "-----"
        } >&2
    fi
    um_stop
    exit "$rc"
}

# --- running things ------------------------------------------------------

# um_run CMD… — runs CMD as the test user with its session environment
# (HOME, XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS…), in harness-run.scope.
um_run() {
    (
        um__join_cgroup harness-run.scope || exit 1
        um__close_lock
        exec setpriv --reuid="$UM_UID" --regid="$UM_GID" --init-groups -- \
            env -i "${UM__USER_ENV[@]}" "$@"
    )
}

# um_root CMD… — runs CMD as root; the whole script already is in the namespace.
um_root() { "$@"; }

# um_systemctl ARGS… — systemctl --user as the test user.
um_systemctl() { um_run systemctl --user "$@"; }

# um_show UNIT PROPERTY — one property's value (systemctl --user show).
um_show() { um_systemctl show -p "$2" --value "$1"; }

# um_write RELPATH [MODE] < CONTENT — writes a file below the test user's home,
# owned by the user (parent directories too).
um_write() {
    local path=$UM_HOME/$1 mode=${2:-0644}
    um_run mkdir -p "$(dirname "$path")" &&
        install -m "$mode" -o "$UM_UID" -g "$UM_GID" /dev/stdin "$path"
}

# um_install RELDIR FILE… — copies files (keeping their mode, so scripts stay
# executable) into a directory below the home, owned by the test user.
um_install() {
    local dir=$UM_HOME/$1 f ; shift
    um_run mkdir -p "$dir" || return 1
    for f in "$@"; do
        install -m "$(stat -c %a "$f")" -o "$UM_UID" -g "$UM_GID" -t "$dir" "$f" || return 1
    done
}

# um_wait_active UNIT [TIMEOUT] — waits until a user unit is active; fails
# (with its status) when it fails or the time runs out.
um_wait_active() {
    local unit=$1 deadline=$((SECONDS + ${2:-10})) state
    while :; do
        state=$(um_systemctl is-active "$unit" 2>/dev/null) || true # non-zero unless active
        [ "$state" = active ] && return 0
        if [ "$state" = failed ] || [ "$SECONDS" -ge "$deadline" ]; then
            echo "user-manager: $unit is $state, not active" >&2
            um_systemctl status --no-pager -n 20 "$unit" >&2 || true
            return 1
        fi
        sleep 0.1
    done
}

# um_journal ARGS… / um_journal_json ARGS… — journalctl (root) on the private
# journal, e.g. um_journal_json _SYSTEMD_USER_UNIT=x.service. For everything
# about a user unit (its output and the manager's lines about it) match both:
# um_journal_json _SYSTEMD_USER_UNIT=x.service + USER_UNIT=x.service
um_journal() { journalctl --no-pager "$@"; }
um_journal_json() { journalctl --no-pager -o json "$@"; }

# um_wait_journal TIMEOUT ARGS… — waits until journalctl ARGS… finds an entry
# and prints the entries as JSON lines. Delivery is asynchronous: always wait.
um_wait_journal() {
    local deadline=$((SECONDS + $1)) out ; shift
    while :; do
        out=$(journalctl --no-pager -q -o json "$@" 2>/dev/null) || true
        if [ -n "$out" ]; then
            printf '%s\n' "$out"
            return 0
        fi
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# um_verify UNITFILE… — systemd-analyze --user verify as the test user. It
# warns on stderr with exit status 0, so any stderr output is a failure.
um_verify() {
    local err rc=0
    err=$(um_run systemd-analyze --user verify "$@" 2>&1 >/dev/null) || rc=$?
    if [ "$rc" -ne 0 ] || [ -n "$err" ]; then
        echo "user-manager: systemd-analyze --user verify $* (rc $rc):" >&2
        printf '%s\n' "$err" >&2
        return 1
    fi
}
