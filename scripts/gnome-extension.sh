#!/usr/bin/env bash
# gnome-extension.sh install|uninstall|pack [DIR] — blocker's GNOME Shell
# extension (extensions/gnome-shell/) for the current user, from `make
# install-files` and `make uninstall`; pack for extensions.gnome.org, from
# `make gnome-extension-zip`.
#
# install: copies the entry point for this GNOME Shell (legacy/ for 43–44,
# esm/ for 45+; GNOME_SHELL_VERSION=NN overrides what `gnome-shell --version`
# says) with core.js and stylesheet.css into
# $XDG_DATA_HOME/gnome-shell/extensions/blocker@blockerd.github.io/, then
# enables it in org.gnome.shell (enabled-extensions, disabled-extensions,
# disable-user-extensions) when gsettings and the schema are there; else says
# what to do. Without GNOME Shell (and no GNOME_SHELL_VERSION) it installs nothing.
# uninstall: removes that directory and takes the extension out of enabled-extensions.
# pack [DIR]: DIR/blocker@blockerd.github.io.shell-extension.zip (DIR default
# build/ in the source tree) for GNOME 45–49, the upload for
# extensions.gnome.org: esm/'s extension.js and metadata.json, core.js,
# stylesheet.css — by `gnome-extensions pack` (--extra-source=core.js), or
# with Python's zipfile when gnome-extensions is not installed — then checked
# by scripts/lib/gnome-extension-lint.py.
set -euo pipefail
uuid=blocker@blockerd.github.io
source_dir=$(cd "$(dirname "$0")/../extensions/gnome-shell" && pwd)
data_home=${XDG_DATA_HOME:-}
[[ $data_home == /* ]] || data_home=$HOME/.local/share
target=$data_home/gnome-shell/extensions/$uuid

say() { echo "gnome extension: $*"; }

# The running user's org.gnome.shell settings are reachable: gsettings, the
# schema, and a session bus (without one gsettings writes to memory only).
have_settings() {
    command -v gsettings >/dev/null 2>&1 || return 1
    local schemas
    # Captured first: `grep -q` quitting early would SIGPIPE gsettings and, under pipefail, fail the check.
    schemas=$(gsettings list-schemas 2>/dev/null) || return 1
    grep -qx org.gnome.shell <<<"$schemas" || return 1
    [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/bus" ]
}

# A gsettings string array ("@as []", "['a', 'b']") as one name a line.
list_items() {
    local text=${1#@as }
    text=${text#[}
    text=${text%]}
    local item
    IFS=, read -ra items <<<"$text"
    for item in "${items[@]}"; do
        item=${item# }
        item=${item#\'}
        item=${item%\'}
        [ -n "$item" ] && echo "$item"
    done
    return 0
}

# Names (one a line on stdin) as a gsettings string array.
as_array() {
    local out="" item
    while IFS= read -r item; do out+="${out:+, }'$item'"; done
    echo "[$out]"
}

# Failures return 1 (never exit): gsettings trouble must not fail an install.
set_list() { # KEY without|with
    local key=$1 mode=$2 current value
    current=$(gsettings get org.gnome.shell "$key") || return 1
    value=$({
        list_items "$current" | grep -vxF "$uuid" || true
        if [ "$mode" = with ]; then echo "$uuid"; fi
    } | as_array) || return 1
    gsettings set org.gnome.shell "$key" "$value" || return 1
}

manual_enable() {
    cat <<MSG
gnome extension: could not enable it here ($1).
  From your GNOME session run:
    gnome-extensions enable $uuid
  or: gsettings set org.gnome.shell enabled-extensions "[..., '$uuid']"
MSG
}

enable_extension() {
    if ! have_settings; then
        manual_enable "no gsettings, no org.gnome.shell schema, or no session bus"
        return 0
    fi
    if ! { set_list enabled-extensions with && set_list disabled-extensions without &&
        gsettings set org.gnome.shell disable-user-extensions false; }; then
        manual_enable "gsettings failed"
        return 0
    fi
    local enabled
    enabled=$(gsettings get org.gnome.shell enabled-extensions) || enabled=
    if list_items "$enabled" | grep -xF "$uuid" >/dev/null; then
        say "enabled in org.gnome.shell enabled-extensions"
    else
        manual_enable "gsettings did not keep it in enabled-extensions"
    fi
}

shell_major() {
    if [ -n "${GNOME_SHELL_VERSION:-}" ]; then
        echo "${GNOME_SHELL_VERSION%%.*}"
        return
    fi
    command -v gnome-shell >/dev/null 2>&1 || return 1
    gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9][0-9]*\).*/\1/p'
}

install_extension() {
    local major variant
    if ! major=$(shell_major) || [ -z "$major" ]; then
        say "GNOME Shell is not installed: skipped (GNOME_SHELL_VERSION=45 make install-files installs it anyway)"
        return 0
    fi
    if [ "$major" -ge 45 ]; then variant=esm; elif [ "$major" -ge 43 ]; then variant=legacy; else
        say "GNOME Shell $major is older than 43, which blocker's extension supports: skipped"
        return 0
    fi
    install -d -m 755 "$target"
    install -m 644 "$source_dir/$variant/metadata.json" "$source_dir/$variant/extension.js" "$target/"
    install -m 644 "$source_dir/core.js" "$source_dir/stylesheet.css" "$target/"
    say "installed the GNOME Shell $major extension ($variant) into $target"
    enable_extension
    say "on Wayland GNOME Shell loads a newly installed extension at the next login: log out and back in"
}

uninstall_extension() {
    rm -rf "$target"
    local enabled=
    have_settings && enabled=$(gsettings get org.gnome.shell enabled-extensions 2>/dev/null) || true
    if list_items "$enabled" | grep -xF "$uuid" >/dev/null; then
        set_list enabled-extensions without || say "could not take it out of enabled-extensions (gsettings failed)"
        say "removed $target and took it out of enabled-extensions"
    else
        say "removed $target"
    fi
}

pack_extension() {
    local out=${1:-$source_dir/../../build} stage zip
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    zip=$out/$uuid.shell-extension.zip
    stage=$(mktemp -d)
    cp "$source_dir/esm/extension.js" "$source_dir/esm/metadata.json" "$source_dir/core.js" \
        "$source_dir/stylesheet.css" "$stage/"
    rm -f "$zip"
    if command -v gnome-extensions >/dev/null 2>&1; then
        gnome-extensions pack "$stage" --extra-source=core.js --out-dir="$out" --force
        say "packed $zip (gnome-extensions pack)"
    else
        python3 - "$stage" "$zip" <<'PY'
import sys, zipfile
stage, zip_path = sys.argv[1:]
with zipfile.ZipFile(zip_path, 'w', zipfile.ZIP_DEFLATED) as z:
    for name in ('metadata.json', 'extension.js', 'core.js', 'stylesheet.css'):
        z.write(f'{stage}/{name}', name)
PY
        say "packed $zip (gnome-extensions is not installed: Python's zipfile, the same four files)"
    fi
    rm -rf "$stage"
    python3 "$(dirname "$0")/lib/gnome-extension-lint.py" "$zip"
}

case "${1:-}" in
install) install_extension ;;
uninstall) uninstall_extension ;;
pack) pack_extension "${2:-}" ;;
*) echo "usage: $0 install|uninstall|pack [DIR]" >&2; exit 2 ;;
esac
