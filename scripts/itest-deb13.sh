#!/usr/bin/env bash
# itest-deb13.sh — the Debian 13 package for real, in the Debian 13 chroot
# (scripts/trixie.sh: built when missing): `make deb` there (`scripts/trixie.sh
# deb`, what `make deb13` runs), against Debian 13's libraries with the host's
# Swift toolchain bound in read-only; its file
# list, with the ES-module GNOME extension (GNOME Shell 48); Debian 13's
# lintian with no error or warning; `apt-get install ./blocker_*.deb` in the
# chroot; the *installed* blockerd run as a user on a private session bus
# (command probe), charged, earned into, asked by the installed blockerctl;
# then `apt-get remove --purge`: nothing of it left in /usr, /etc, /var/lib.
# Root only. Exit 0 = pass. The package is purged, the mounts undone and every
# process stopped, pass or fail.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
fx_begin itest-deb13
[ "$(id -u)" -eq 0 ] || fail "must run as root (it builds a chroot and installs into it)"
scripts/trixie.sh ensure || fail "the Debian 13 chroot could not be built"
R=$(scripts/trixie.sh root)
started=$SECONDS

in_chroot() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
installed() {
    local status
    status=$(in_chroot dpkg-query -W -f='${db:Status-Status}' blocker 2>/dev/null) || return 1
    [ -n "$status" ] && [ "$status" != not-installed ]
}
work=/tmp/$(basename "$fx_dir") # the same directory, as the chroot sees it
mounted=
cleanup() {
    local status=$?
    set +e
    for ((i = ${#fx_pids[@]} - 1; i >= 0; i--)); do fx_stop "${fx_pids[i]}"; done
    if [ -n "$mounted" ]; then
        installed && in_chroot env DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q blocker >/dev/null 2>&1
        scripts/trixie.sh umount
    fi
    rm -rf "$R$work" "$fx_dir"
    exit "$status"
}
trap cleanup EXIT
scripts/trixie.sh mount || fail "cannot mount the chroot's /proc, /sys, /dev, /run"
mounted=1
installed && in_chroot env DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q blocker >/dev/null 2>&1

# --- make deb, in the chroot (scripts/trixie.sh deb) ----------------------------
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
t0=$SECONDS
scripts/trixie.sh deb "$fx_dir/deb" >"$fx_dir/make-deb.log" 2>&1 \
    || fail "make deb in the Debian 13 chroot: $(tail -n 30 "$fx_dir/make-deb.log")"
[ -f "$fx_dir/deb/blocker_${version}_amd64.deb" ] || fail "scripts/trixie.sh deb did not write blocker_${version}_amd64.deb"
mkdir -p "$R$work/deb"
cp "$fx_dir/deb/blocker_${version}_amd64.deb" "$R$work/deb/"
deb=$work/deb/blocker_${version}_amd64.deb
ok "make deb in Debian 13 ($(in_chroot cat /etc/debian_version)) built $(basename "$deb") ($(stat -c %s "$R$deb") bytes) in $((SECONDS - t0)) s"

# --- what it holds and what it links ------------------------------------------------
gnome=/usr/share/gnome-shell/extensions/blocker@blockerd.github.io
in_chroot dpkg-deb -x "$deb" "$work/root"
grep -q '"48"' "$R$work/root$gnome/metadata.json" \
    || fail "the Debian 13 package's GNOME extension is not the one for GNOME Shell 48: $(cat "$R$work/root$gnome/metadata.json")"
grep -q "export default class" "$R$work/root$gnome/extension.js" || fail "the Debian 13 package has the legacy extension.js"
depends=$(in_chroot dpkg-deb -f "$deb" Depends)
# Debian 13's library packages: the 64-bit time_t transition's t64 names, RE2's soname 11.
grep -q 'libglib2.0-0t64' <<<"$depends" && grep -q 'libre2-11' <<<"$depends" \
    || fail "Depends is not from Debian 13's shlibs (libglib2.0-0t64, libre2-11): $depends"
grep -qi swift <<<"$depends" && fail "Depends names a Swift runtime: $depends"
ok "the ES-module extension (GNOME Shell 45–49); Depends from Debian 13's shlibs ($(grep -o 'libre2-[^,]*' <<<"$depends"), $(grep -o 'libglib[^,]*' <<<"$depends"))"

lintian_rc=0
lintian_out=$(in_chroot lintian --fail-on error,warning "$deb" 2>&1) || lintian_rc=$?
lintian_out=$(grep -v '^running with root privileges is not recommended!$' <<<"$lintian_out" || true)
echo "itest-deb13: lintian $(in_chroot dpkg-query -W -f='${Version}' lintian): ${lintian_out:-(no tags)}"
[ "$lintian_rc" -eq 0 ] || fail "Debian 13's lintian exit status $lintian_rc"
grep -qE '^[EW]: ' <<<"$lintian_out" && fail "Debian 13's lintian reports errors or warnings"
ok "Debian 13's lintian: no error, no warning"

# --- apt-get install, run, purge ------------------------------------------------------
chmod 755 "$R$work" "$R$work/deb"
# What is named like blocker before the install (the chroot's own test files), to compare after the purge.
leftovers() { in_chroot sh -c "find /usr /etc /var/lib/dpkg/info /var/lib/systemd -name '*blocker*' 2>/dev/null | sort"; }
leftovers >"$fx_dir/before"
in_chroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$fx_dir/install.log" 2>&1 \
    || fail "apt-get install $deb in the chroot: $(tail -n 20 "$fx_dir/install.log")"
[ "$(in_chroot dpkg-query -W -f='${Version}' blocker)" = "$version" ] || fail "dpkg does not list blocker $version as installed"
ldd_out=$(in_chroot ldd /usr/bin/blockerd /usr/bin/blockerctl /usr/bin/blocker-overlay)
grep -q 'not found' <<<"$ldd_out" && fail "an installed program misses a library: $(grep 'not found' <<<"$ldd_out")"
for p in blockerd blockerctl blocker-overlay; do
    [ "$(in_chroot "/usr/bin/$p" --version)" = "$p $version" ] || fail "the installed $p --version does not say $p $version"
done
ok "apt-get install in Debian 13: every library found, the three programs run"

# The installed blockerd as an unprivileged user (nobody), on a private session bus.
home=$work/home
mkdir -p "$R$home/.config/blocker" "$R$home/state"
printf '%s\n' '[daemon]' 'probe = "command"' 'poll-interval = "1s"' \
    "probe-command = [\"/bin/cat\", \"$home/front.json\"]" \
    '[earn]' 'pushups = 0.5' '[[group]]' 'name = "social"' 'apps = ["discord"]' >"$R$home/.config/blocker/blocker.toml"
echo '{"app":"discord","title":"chat","pid":1}' >"$R$home/front.json"
fx_bus_config "$R$work/bus.conf" session "$home/bus"
chown -R nobody:nogroup "$R$home"
user_env=(chroot --userspec=nobody:nogroup "$R" env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$home"
    DBUS_SESSION_BUS_ADDRESS="unix:path=$home/bus" LANG=C.UTF-8 TZ=UTC)
as_user() { "${user_env[@]}" "$@"; }
# Started with exec (chroot and env exec too), so $! is the server itself and
# fx_stop ends it, not a subshell that leaves it running.
(exec "${user_env[@]}" dbus-daemon --config-file="$work/bus.conf" --nofork) >"$fx_dir/bus.log" 2>&1 &
fx_track $!
for _ in $(seq 50); do [ -S "$R$home/bus" ] && break; sleep 0.1; done
(exec "${user_env[@]}" /usr/bin/blockerd --state-dir "$home/state") >"$fx_dir/blockerd.log" 2>&1 &
fx_track $!
for _ in $(seq 50); do as_user blockerctl status >/dev/null 2>&1 && break; sleep 0.1; done
status=$(as_user blockerctl status --json) || fail "the installed blockerctl status: $status"
python3 -c 'import json, sys; s = json.loads(sys.argv[1]); sys.exit(0 if s["shield"]["active"] and s["foreground"]["app"] == "discord" else 1)' \
    "$status" || fail "the installed blockerd does not cover discord at zero: $status"
as_user blockerctl earn 4 pushups >/dev/null || fail "the installed blockerctl earn 4 pushups"
sleep 1.5
balance=$(as_user blockerctl status --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["balance_ms"])')
[ "$balance" -gt 0 ] && [ "$balance" -lt 120000 ] || fail "after earning 2 minutes and 1.5 s of discord the balance is $balance ms"
[ -s "$R$home/state/blocker.db" ] || fail "the installed blockerd wrote no ledger"
ok "the installed blockerd: covered discord at zero, earned 2 min, charged discord ($balance ms left)"
for ((i = ${#fx_pids[@]} - 1; i >= 0; i--)); do fx_stop "${fx_pids[i]}"; done
fx_pids=()

in_chroot env DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q blocker >"$fx_dir/purge.log" 2>&1 \
    || fail "apt-get remove --purge blocker: $(tail -n 20 "$fx_dir/purge.log")"
installed && fail "dpkg still lists blocker after the purge"
leftovers >"$fx_dir/after"
left=$(diff "$fx_dir/before" "$fx_dir/after" | grep '^>' || true)
[ -z "$left" ] || fail "the purge left: $left"
ok "apt-get remove --purge: nothing named blocker left in /usr, /etc, /var/lib"
echo "pass in $((SECONDS - started)) s"
