#!/usr/bin/env bash
# The Debian package for real: `make deb` (the one release build of a check
# run), its file list (dpkg-deb -c) exactly as expected, lintian with no error
# or warning, `apt-get install ./blocker_*.deb`, blockerd started from the
# *installed* units under a real systemd --user manager (scripts/lib/user-manager.sh),
# the installed programs, man pages and completions, then `apt-get remove
# --purge`: nothing of the package is left in /usr, /etc or /var/lib, and the
# user's own config and ledger are. Root only (apt-get). Exit 0 = pass.
# The package is purged and every process stopped, pass or fail.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/user-manager.sh
source "$here/scripts/lib/user-manager.sh"
um_enter "$@"
fx_named itest-deb

started=$SECONDS
ok() { echo "itest-deb: ok ($((SECONDS - started))s): $*"; }

[ "$(id -u)" -eq 0 ] || fail "must run as root (it installs and purges the package with apt-get)"
installed() {
    local status
    status=$(dpkg-query -W -f='${db:Status-Status}' blocker 2>/dev/null) || return 1
    [ -n "$status" ] && [ "$status" != not-installed ]
}
installed && fail "a blocker package is on this machine already; this test installs and purges its own (apt-get remove --purge blocker first)"

work=$(mktemp -d /tmp/blocker-itest-deb.XXXXXX)
chmod 755 "$work" # apt's _apt user reads the .deb from here
# On every exit: purge the package if it got installed (um_start chains this
# before it stops the user manager).
cleanup() {
    if installed; then
        DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y blocker >"$work/cleanup-purge.log" 2>&1 ||
            { echo "itest-deb: could not purge blocker:" >&2; cat "$work/cleanup-purge.log" >&2; }
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- make deb --------------------------------------------------------------
version=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
t0=$SECONDS
make --no-print-directory -C "$here" deb DEB_OUTDIR="$work/deb" >"$work/make-deb.log" 2>&1 ||
    { tail -n 40 "$work/make-deb.log" >&2; fail "make deb"; }
deb=$work/deb/blocker_${version}_amd64.deb
[ -f "$deb" ] || fail "make deb did not write $deb (in $work/deb: $(ls "$work/deb"))"
ok "make deb built $(basename "$deb") ($(stat -c %s "$deb") bytes) in $((SECONDS - t0)) s"

# --- what it holds ---------------------------------------------------------
units=(blockerd.service blockerd-watchdog.service blockerd-watchdog.timer blocker-overlay.service)
gnome=/usr/share/gnome-shell/extensions/blocker@blockerd.github.io
expected=(/usr/bin/{blockerd,blockerctl,blocker-overlay} "${units[@]/#//usr/lib/systemd/user/}"
    /etc/xdg/blocker/blocker.toml
    "$gnome"/{metadata.json,extension.js,core.js,stylesheet.css}
    /usr/share/kwin/scripts/blocker/metadata.json /usr/share/kwin/scripts/blocker/contents/code/main.js
    /usr/share/man/man1/{blockerctl,blocker-overlay}.1.gz /usr/share/man/man5/blocker.toml.5.gz /usr/share/man/man8/blockerd.8.gz
    /usr/share/bash-completion/completions/blockerctl /usr/share/zsh/vendor-completions/_blockerctl
    /usr/share/fish/vendor_completions.d/blockerctl.fish
    /usr/share/doc/blocker/{README.md,copyright,changelog.gz}
    /usr/bin/blocker-browser-host /usr/share/man/man1/blocker-browser-host.1.gz
    /usr/share/blocker/browser-extension/{manifest.json,background.js,block.html,block.js,block.css}
    /usr/share/chromium/extensions/blocker
    "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/blocker@blockerd.github.io"
    {/etc/chromium,/usr/lib/mozilla}/native-messaging-hosts/io.github.blockerd.browser.json)
for desktop in "$here"/data/*.desktop; do
    [ -e "$desktop" ] && expected+=("/usr/share/applications/$(basename "$desktop")")
done
# The translations: blocker's own, and the GNOME Shell extension's in its locale/.
for po in "$here"/po/*.po; do expected+=("/usr/share/locale/$(basename "$po" .po)/LC_MESSAGES/blocker.mo"); done
for po in "$here"/po/gnome-shell/*.po; do
    expected+=("$gnome/locale/$(basename "$po" .po)/LC_MESSAGES/blocker-gnome-shell.mo")
done
# Files and symlinks (not directories), as absolute paths.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort >"$work/files"
printf '%s\n' "${expected[@]}" | sort >"$work/expected"
diff -u "$work/expected" "$work/files" >"$work/files.diff" ||
    { cat "$work/files.diff" >&2; fail "dpkg-deb -c: the package's files are not the expected ones (- missing, + unexpected)"; }
conffiles=$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | sort | tr '\n' ' ')
[ "$conffiles" = "/etc/chromium/native-messaging-hosts/io.github.blockerd.browser.json /etc/xdg/blocker/blocker.toml " ] ||
    fail "the conffiles are not blocker.toml and Chromium's host manifest: $conffiles"
[ "$(dpkg-deb -c "$deb" | awk '$6 == "./usr/bin/blocker-browser-host" { print $8 }')" = blockerctl ] ||
    fail "/usr/bin/blocker-browser-host is not a link to blockerctl"
depends=$(dpkg-deb -f "$deb" Depends)
grep -q 'libc6' <<<"$depends" || fail "Depends lacks the shlibs dependencies: $depends"
grep -qi swift <<<"$depends" && fail "Depends names a Swift runtime (the build links --static-swift-stdlib): $depends"
dpkg-deb -x "$deb" "$work/root"
grep -q "^ExecStart=/usr/bin/blockerd --state-dir %h/.local/state/blocker$" "$work/root/usr/lib/systemd/user/blockerd.service" ||
    fail "the packaged blockerd.service does not run /usr/bin/blockerd"
grep -q '"43"' "$work/root$gnome/metadata.json" ||
    fail "the packaged GNOME Shell extension is not the one for Debian 12's GNOME Shell 43 (extensions/gnome-shell/legacy)"
ok "dpkg-deb -c: the ${#expected[@]} expected files and no other; conffiles blocker.toml and Chromium's host manifest; Depends from shlibs, no Swift runtime"

# --- lintian -----------------------------------------------------------------
lintian_rc=0
lintian_out=$(lintian --fail-on error,warning "$deb" 2>&1) || lintian_rc=$?
lintian_out=$(grep -v '^running with root privileges is not recommended!$' <<<"$lintian_out")
echo "itest-deb: lintian: ${lintian_out:-(no tags)}"
[ "$lintian_rc" -eq 0 ] || fail "lintian exit status $lintian_rc"
grep -qE '^[EW]: ' <<<"$lintian_out" && fail "lintian reports errors or warnings"
ok "lintian: no error, no warning"

# --- apt-get install -----------------------------------------------------------
# What is named like blocker in the package's places, and all of where
# deb-systemd-helper enables user units (an emptied .wants directory counts):
# before, to compare after the purge.
leftovers() {
    {
        find /usr /etc /var/lib/systemd /var/lib/dpkg/info -name '*blocker*'
        find /etc/systemd/user /var/lib/systemd/deb-systemd-user-helper-enabled
    } 2>/dev/null | sort -u
}
leftovers >"$work/before"
DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" >"$work/install.log" 2>&1 ||
    { tail -n 30 "$work/install.log" >&2; fail "apt-get install $deb"; }
[ "$(dpkg-query -W -f='${Version}' blocker)" = "$version" ] || fail "dpkg does not list blocker $version as installed"
for f in "${expected[@]}"; do [ -e "$f" ] || fail "installed, but $f is missing"; done
# dh_installsystemduser enables the units globally, for every user's graphical session.
for unit in blockerd.service blockerd-watchdog.timer blocker-overlay.service; do
    [ "$(readlink "/etc/systemd/user/graphical-session.target.wants/$unit")" = "/usr/lib/systemd/user/$unit" ] ||
        fail "$unit is not enabled for graphical-session.target (/etc/systemd/user/graphical-session.target.wants/)"
done
ldd_out=$(ldd /usr/bin/blockerd /usr/bin/blockerctl /usr/bin/blocker-overlay)
grep -q 'not found' <<<"$ldd_out" && fail "an installed program misses a library: $(grep 'not found' <<<"$ldd_out")"
ok "apt-get install: every file in place, units enabled in /etc/systemd/user/graphical-session.target.wants, every library found"

# --- the installed units under a real systemd --user ------------------------------
um_start
fx_on_fail=(um_systemctl status --no-pager -n 30 blockerd.service)
for unit in blockerd.service blockerd-watchdog.timer blocker-overlay.service; do
    [ "$(um_systemctl is-enabled "$unit")" = enabled ] || fail "the user manager does not see $unit enabled"
    grep -qw "$unit" <<<"$(um_show graphical-session.target Wants)" || fail "graphical-session.target does not want $unit"
done
[ "$(um_show blockerd.service FragmentPath)" = /usr/lib/systemd/user/blockerd.service ] ||
    fail "the user manager loads blockerd.service from $(um_show blockerd.service FragmentPath)"
um_verify "${units[@]/#//usr/lib/systemd/user/}" || fail "systemd-analyze --user verify complained about the installed units"
ok "user manager: the installed units verify, are enabled, and graphical-session.target wants them"

# No config of the user's: the programs read the package's /etc/xdg/blocker/blocker.toml.
names=$(um_run blockerctl config names exercises) || fail "blockerctl config names exercises, with only /etc/xdg's config"
[ "$names" = "$(printf 'pushups\nsquats')" ] || fail "with no user config blockerctl read other exercises than /etc/xdg/blocker/blocker.toml's: $names"
ok "no user config: blockerctl reads /etc/xdg/blocker/blocker.toml (exercises: ${names//$'\n'/, })"

# Issue 20: the package starts blockerd in every user's session, and its
# config meters discord from a balance of 0. With no config of the user's
# own, blockerd observes and records and covers nothing, and says how to
# start. The package's file, with only its probe made a command that reads
# what "is in front" from a file, serves as the system's default here
# (XDG_CONFIG_DIRS): a second user's first login with discord in front.
sed -e 's|^probe = "auto"|probe = "command"|' \
    -e "s|^# probe-command = .*|probe-command = [\"/bin/cat\", \"$UM_HOME/front.json\"]|" /etc/xdg/blocker/blocker.toml |
    um_write xdg/blocker/blocker.toml
echo '{"app":"discord","title":"chat","pid":1}' | um_write front.json
um_systemctl set-environment XDG_CONFIG_DIRS="$UM_HOME/xdg" || fail "systemctl --user set-environment XDG_CONFIG_DIRS"
um_systemctl start blockerd.service || fail "start the installed blockerd.service with only the system's config"
um_wait_active blockerd.service 10 || fail "the installed blockerd.service never became active on the system's config"
sleep 2
status=$(um_show blockerd.service StatusText)
[ "$status" = "Balance 0s · front: discord (social)" ] || fail "with no config of the user's own, STATUS= is '$status' (covered?)"
said=$(um_run blockerctl status) || fail "blockerctl status, with only the system's config"
grep -q '^metering  *off .*to start: copy' <<<"$said" || fail "blockerctl status does not say how to start metering: $said"
um_run blockerctl status --json | grep -q '"active": *false' || fail "a shield is up with only the system's config"
um_systemctl stop blockerd.service
um_systemctl unset-environment XDG_CONFIG_DIRS
ok "no config of the user's own: discord in front at a balance of 0 is observed, not covered (STATUS='$status'); status says how to start metering"

# The user's own config: the command probe reads what "is in front" from a file.
printf '%s\n' '[daemon]' 'probe = "command"' 'poll-interval = "1s"' \
    "probe-command = [\"/bin/cat\", \"$UM_HOME/front.json\"]" \
    '[earn]' 'pushups = 0.5' '[[group]]' 'name = "social"' 'apps = ["discord"]' |
    um_write .config/blocker/blocker.toml
um_systemctl start blockerd.service || fail "start the installed blockerd.service"
um_wait_active blockerd.service 10 || fail "the installed blockerd.service never became active (READY=1)"
pid=$(um_show blockerd.service MainPID)
[ "$(readlink "/proc/$pid/exe")" = /usr/bin/blockerd ] || fail "the running blockerd is $(readlink "/proc/$pid/exe"), not /usr/bin/blockerd"
status=$(um_show blockerd.service StatusText)
[ "$status" = "Shield up: discord (balance)" ] || fail "unexpected STATUS= line: '$status'"
um_run blockerctl earn 4 pushups >/dev/null || fail "blockerctl earn 4 pushups (over D-Bus to the installed blockerd)"
[ -s "$UM_HOME/.local/state/blocker/blocker.db" ] || fail "no ledger at ~/.local/state/blocker/blocker.db"
ok "installed blockerd.service active through READY=1 as /usr/bin/blockerd (pid $pid), STATUS='$status'; blockerctl earn answered"

for p in blockerd blockerctl blocker-overlay; do
    [ "$(um_run "$p" --version)" = "$p $version" ] || fail "$p --version does not say $p $version"
done
for page in "1 blockerctl" "1 blocker-overlay" "5 blocker.toml" "8 blockerd"; do
    read -r section name <<<"$page"
    where=$(um_run man -w "$section" "$name") || fail "man -w $section $name found nothing"
    [ "$where" = "/usr/share/man/man$section/$name.$section.gz" ] || fail "man $section $name is $where, not the package's"
    text=$(um_run env MANPAGER=cat MANWIDTH=80 man "$section" "$name" 2>&1) || fail "man $section $name: $text"
    grep -q "^NAME" <<<"$text" || fail "man $section $name printed no NAME section"
done
um_run bash -c 'source /usr/share/bash-completion/completions/blockerctl && complete -p blockerctl' >/dev/null ||
    fail "the installed bash completion does not register a completion for blockerctl"
completions=$(um_run fish -c 'complete -C "blockerctl "' 2>&1) || fail "fish: complete -C: $completions"
grep -q '^status' <<<"$completions" || fail "fish does not complete blockerctl's commands from its vendor directory: $completions"
head -1 /usr/share/zsh/vendor-completions/_blockerctl | grep -q '^#compdef blockerctl' ||
    fail "the zsh completion does not start with #compdef blockerctl"
ok "--version of the three programs, man -w/man for the 4 pages, bash and fish completions answer, zsh's #compdef"

# --- apt-get remove --purge ---------------------------------------------------------
um_systemctl stop blockerd-watchdog.timer blockerd.service || fail "stop the units before the purge"
DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y blocker >"$work/purge.log" 2>&1 ||
    { tail -n 30 "$work/purge.log" >&2; fail "apt-get remove --purge blocker"; }
installed && fail "dpkg still lists blocker after the purge"
for f in "${expected[@]}"; do [ ! -e "$f" ] || fail "the purge left $f"; done
[ ! -e /etc/xdg/blocker ] || fail "the purge left /etc/xdg/blocker"
leftovers >"$work/after"
diff -u "$work/before" "$work/after" >"$work/leftovers.diff" ||
    { cat "$work/leftovers.diff" >&2; fail "the purge left files named like blocker in /usr, /etc or /var/lib (+ lines)"; }
um_systemctl daemon-reload || fail "daemon-reload after the purge"
um_systemctl cat blockerd.service >/dev/null 2>&1 && fail "the user manager still finds blockerd.service after the purge"
[ -s "$UM_HOME/.config/blocker/blocker.toml" ] || fail "the purge removed the user's ~/.config/blocker/blocker.toml"
[ -s "$UM_HOME/.local/state/blocker/blocker.db" ] || fail "the purge removed the user's ledger ~/.local/state/blocker/blocker.db"
ok "apt-get remove --purge: nothing left in /usr, /etc, /var/lib; the user's config and ledger kept"
