#!/usr/bin/env bash
# install-kwin-script.sh install|uninstall — blocker's KWin script (extensions/kwin),
# for `make install-files` and `make uninstall`.
#
# install: kpackagetool6/kpackagetool5 installs (or upgrades) the KPackage,
#   else it is copied to ${XDG_DATA_HOME:-~/.local/share}/kwin/scripts/blocker;
#   `[Plugins] blockerEnabled=true` goes into kwinrc (kwriteconfig6/5, else the
#   file is edited in place, keeping everything else), so KWin loads it at
#   every start; and when KWin is on the session bus the script is (re)loaded
#   right away over org.kde.kwin.Scripting, so no new login is needed.
# uninstall: unloads it, removes it and its kwinrc key.
#
# Without KWin (no kwin_wayland or kwin_x11, and KWIN=auto) it installs nothing
# and leaves kwinrc alone; KWIN=yes installs all the same.
# KPACKAGETOOL=none / KWRITECONFIG=none force the copy / edit fallbacks (tests).
set -euo pipefail
cd "$(dirname "$0")/.."
name=blocker
source_dir=extensions/kwin
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
config_home=${XDG_CONFIG_HOME:-$HOME/.config}
script_dir=$data_home/kwin/scripts/$name
kwinrc=$config_home/kwinrc
key=${name}Enabled

first_found() {
    local tool
    for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 && { echo "$tool"; return 0; }; done
    echo none
}
kpackagetool=${KPACKAGETOOL:-$(first_found kpackagetool6 kpackagetool5)}
kwriteconfig=${KWRITECONFIG:-$(first_found kwriteconfig6 kwriteconfig5)}

say() { echo "kwin script: $*"; }

# --- kwinrc ----------------------------------------------------------------

# Sets (VALUE true) or removes (VALUE empty) `$key` in kwinrc's [Plugins] group.
set_enabled() {
    local value=$1
    if [ "$kwriteconfig" != none ]; then
        if [ -n "$value" ]; then
            "$kwriteconfig" --file kwinrc --group Plugins --key "$key" "$value"
        else
            "$kwriteconfig" --file kwinrc --group Plugins --key "$key" --delete
        fi
        return
    fi
    [ -n "$value" ] || [ -e "$kwinrc" ] || return 0
    mkdir -p "$config_home"
    local edited current=/dev/null
    [ -e "$kwinrc" ] && current=$kwinrc
    edited=$(mktemp "$kwinrc.XXXXXX")
    # Only our key in [Plugins] changes; every other line is kept as it is.
    awk -v key="$key" -v value="$value" '
        function put() { if (value != "" && !done) print key "=" value; done = 1 }
        /^\[/ { if (inside) put(); inside = ($0 == "[Plugins]"); print; next }
        inside && index($0, key "=") == 1 { put(); next }
        { print }
        END {
            if (inside) put()
            else if (!done && value != "") { if (NR > 0) print ""; print "[Plugins]"; print key "=" value }
        }' "$current" >"$edited"
    chmod --reference="$kwinrc" "$edited" 2>/dev/null || chmod 600 "$edited"
    mv "$edited" "$kwinrc"
}

# --- KWin, live --------------------------------------------------------------

# Asked of the bus (NameHasOwner), not `busctl status org.kde.KWin`: that one
# reads the peer's credentials, and fails ("Failed to get credentials: No
# medium found") where /sys/fs/cgroup is empty, as in a chroot or container.
kwin_running() {
    [ "$(busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        NameHasOwner s org.kde.KWin 2>/dev/null)" = "b true" ]
}
scripting() { busctl --user call org.kde.KWin /Scripting org.kde.kwin.Scripting "$@"; }

unload_live() {
    kwin_running || return 0
    scripting unloadScript s "$name" >/dev/null 2>&1 || true
}

load_live() {
    if ! kwin_running; then
        say "KWin is not running on this session bus: it loads the script at its next start"
        return 0
    fi
    local id
    unload_live
    # KWin deletes an unloaded script from its event loop: until then the name is taken (-1).
    for _ in $(seq 40); do
        id=$(scripting loadScript ss "$script_dir/contents/code/main.js" "$name" | awk '{print $2}') || id=
        [ "${id:--1}" -ge 0 ] && break
        sleep 0.05
    done
    if [ -z "$id" ] || [ "$id" -lt 0 ]; then
        echo "kwin script: KWin refused to load $script_dir (see its log: journalctl --user -b | grep kwin)" >&2
        return 1
    fi
    # Then `start`, not `run` on /<id>: KWin 5.27 numbers a script by how many are
    # loaded, so after an unload /<id> may be another script's. `start` runs every
    # loaded script not running yet (and reads kwinrc, where it is enabled now).
    scripting start >/dev/null
    say "loaded into the running KWin"
}

# --- the package -------------------------------------------------------------

install_package() {
    if [ "$kpackagetool" != none ]; then
        local mode=-i
        "$kpackagetool" --type KWin/Script --show "$name" >/dev/null 2>&1 && mode=-u
        "$kpackagetool" --type KWin/Script "$mode" "$source_dir" >/dev/null
        say "installed with $kpackagetool ($script_dir)"
    else
        rm -rf "$script_dir"
        mkdir -p "$(dirname "$script_dir")"
        cp -R "$source_dir" "$script_dir"
        chmod -R u+rwX,go+rX "$script_dir"
        say "copied to $script_dir"
    fi
}

remove_package() {
    if [ "$kpackagetool" != none ] && "$kpackagetool" --type KWin/Script --show "$name" >/dev/null 2>&1; then
        "$kpackagetool" --type KWin/Script -r "$name" >/dev/null
    fi
    rm -rf "$script_dir"
}

case "${1:-}" in
install)
    if [ "${KWIN:-auto}" != yes ] && [ "$(first_found kwin_wayland kwin_x11)" = none ]; then
        say "no KWin on this machine: nothing installed (KWIN=yes installs it all the same)"
        exit 0
    fi
    install_package
    set_enabled true
    load_live
    ;;
uninstall)
    unload_live
    remove_package
    set_enabled ""
    say "removed"
    ;;
*)
    echo "usage: $0 install|uninstall" >&2
    exit 2
    ;;
esac
