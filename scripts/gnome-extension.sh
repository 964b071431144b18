#!/usr/bin/env bash
# gnome-extension.sh install|uninstall|pack [DIR]|locale DIR|pot — blocker's
# GNOME Shell extension (extensions/gnome-shell/) for the current user, from
# `make install-files` and `make uninstall`; pack for extensions.gnome.org,
# from `make gnome-extension-zip`.
#
# install: copies the entry point for this GNOME Shell (legacy/ for 43–44,
# esm/ for 45+; GNOME_SHELL_VERSION=NN overrides what `gnome-shell --version`
# says) with core.js, stylesheet.css and the translations (po/gnome-shell/,
# compiled into locale/; without msgfmt it says so and installs English only)
# into $XDG_DATA_HOME/gnome-shell/extensions/blocker@blockerd.github.io/, then
# enables it in org.gnome.shell (enabled-extensions, disabled-extensions,
# disable-user-extensions) when gsettings and the schema are there; else says
# what to do. Without GNOME Shell (and no GNOME_SHELL_VERSION) it installs nothing.
# uninstall: removes that directory (translations included) and takes the
# extension out of enabled-extensions.
# pack [DIR]: DIR/blocker@blockerd.github.io.shell-extension.zip (DIR default
# build/ in the source tree) for GNOME 45–49, the upload for
# extensions.gnome.org: esm/'s extension.js and metadata.json, core.js,
# stylesheet.css, locale/ — by `gnome-extensions pack` (--extra-source=core.js,
# --podir), or with Python's zipfile when gnome-extensions is not installed —
# then checked by scripts/lib/gnome-extension-lint.py. Needs msgfmt.
# locale DIR: DIR/LL/LC_MESSAGES/blocker-gnome-shell.mo for each
# po/gnome-shell/LL.po (the Debian package: the locale/ folder beside the
# extension). Needs msgfmt.
# pot: po/gnome-shell/blocker-gnome-shell.pot from core.js (xgettext), and
# each LL.po brought up to it (msgmerge), once the extension's words changed.
set -euo pipefail
uuid=blocker@blockerd.github.io
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
source_dir=$repo_dir/extensions/gnome-shell
# The extension's own text domain (metadata.json's gettext-domain) and its translations.
domain=blocker-gnome-shell
po_dir=$repo_dir/po/gnome-shell
# The user's copy (install, uninstall). pack, locale and pot need no HOME: a
# package build may run without one.
data_home=${XDG_DATA_HOME:-}
[[ $data_home == /* ]] || data_home=${HOME:+$HOME/.local/share}
target=${data_home:+$data_home/gnome-shell/extensions/$uuid}

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

# The languages of po/gnome-shell/: "fr it nl pt".
languages() {
    local po names=()
    for po in "$po_dir"/*.po; do
        [ -e "$po" ] && names+=("$(basename "$po" .po)")
    done
    echo "${names[*]}"
}

# DIR/LL/LC_MESSAGES/blocker-gnome-shell.mo for each po/gnome-shell/LL.po.
compile_locale() {
    local dir=$1 lang
    for lang in $(languages); do
        install -d -m 755 "$dir/$lang/LC_MESSAGES"
        msgfmt --check -o "$dir/$lang/LC_MESSAGES/$domain.mo" "$po_dir/$lang.po"
        chmod 644 "$dir/$lang/LC_MESSAGES/$domain.mo"
    done
}

need_msgfmt() { # WHAT — exits unless msgfmt is there
    command -v msgfmt >/dev/null 2>&1 || { say "msgfmt is not installed (apt-get install gettext): cannot $1"; exit 1; }
}

need_target() {
    [ -n "$target" ] || { say "neither XDG_DATA_HOME nor HOME is set: no place for the extension"; exit 1; }
}

install_extension() {
    local major variant
    need_target
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
    rm -rf "$target/locale"
    if command -v msgfmt >/dev/null 2>&1; then
        compile_locale "$target/locale"
        say "installed the GNOME Shell $major extension ($variant) into $target (English, $(languages))"
    else
        say "installed the GNOME Shell $major extension ($variant) into $target"
        say "msgfmt is not installed: the extension speaks English only; install gettext and run this again for $(languages)"
    fi
    enable_extension
    say "on Wayland GNOME Shell loads a newly installed extension at the next login: log out and back in"
}

uninstall_extension() {
    need_target
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
    local out=${1:-$repo_dir/build} stage zip
    # The upload does not go out without its translations.
    need_msgfmt "pack the translations"
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    zip=$out/$uuid.shell-extension.zip
    stage=$(mktemp -d)
    cp "$source_dir/esm/extension.js" "$source_dir/esm/metadata.json" "$source_dir/core.js" \
        "$source_dir/stylesheet.css" "$stage/"
    rm -f "$zip"
    if command -v gnome-extensions >/dev/null 2>&1; then
        gnome-extensions pack "$stage" --extra-source=core.js --podir="$po_dir" --gettext-domain="$domain" \
            --out-dir="$out" --force
        say "packed $zip (gnome-extensions pack)"
    else
        compile_locale "$stage/locale"
        python3 - "$stage" "$zip" <<'PY'
import pathlib, sys, zipfile
stage, zip_path = pathlib.Path(sys.argv[1]), sys.argv[2]
with zipfile.ZipFile(zip_path, 'w', zipfile.ZIP_DEFLATED) as z:
    for name in ('metadata.json', 'extension.js', 'core.js', 'stylesheet.css'):
        z.write(stage / name, name)
    for mo in sorted(stage.glob('locale/*/LC_MESSAGES/*.mo')):
        z.write(mo, mo.relative_to(stage).as_posix())
PY
        say "packed $zip (gnome-extensions is not installed: Python's zipfile, the same files)"
    fi
    rm -rf "$stage"
    python3 "$(dirname "$0")/lib/gnome-extension-lint.py" "$zip"
}

locale_files() {
    local dir=$1
    [ -n "$dir" ] || { echo "usage: $0 locale DIR" >&2; exit 2; }
    need_msgfmt "compile the translations"
    compile_locale "$dir"
    say "compiled $(languages) into $dir/LL/LC_MESSAGES/$domain.mo"
}

# core.js marks its words _(…) and ngettext(…, …, n). As po/blocker.pot
# (scripts/i18n.sh): no line numbers and a fixed date, so that only a
# changed word changes the template.
update_pot() {
    local pot=$po_dir/$domain.pot lang
    command -v xgettext >/dev/null 2>&1 && command -v msgmerge >/dev/null 2>&1 \
        || { say "xgettext and msgmerge are not installed (apt-get install gettext)"; exit 1; }
    (cd "$repo_dir" && xgettext --language=JavaScript --from-code=UTF-8 --keyword=_ --keyword=ngettext:1,2 \
        --add-comments=Translators --add-location=file --no-wrap --package-name="$domain" \
        --msgid-bugs-address=https://github.com/blockerd/blocker/issues \
        --output="$pot" extensions/gnome-shell/core.js)
    sed -i 's/^"POT-Creation-Date: .*"$/"POT-Creation-Date: 2026-01-01 00:00+0000\\n"/' "$pot"
    for lang in $(languages); do
        msgmerge --quiet --update --backup=none --no-wrap "$po_dir/$lang.po" "$pot"
    done
    say "$pot: $(($(grep -c '^msgid ' "$pot") - 1)) texts; merged into $(languages)"
}

case "${1:-}" in
install) install_extension ;;
uninstall) uninstall_extension ;;
pack) pack_extension "${2:-}" ;;
locale) locale_files "${2:-}" ;;
pot) update_pot ;;
*) echo "usage: $0 install|uninstall|pack [DIR]|locale DIR|pot" >&2; exit 2 ;;
esac
