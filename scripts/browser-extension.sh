#!/usr/bin/env bash
# browser-extension.sh install|uninstall BINDIR — blocker's browser extension
# (extensions/browser/) for the current user, from `make install-files` and
# `make uninstall`.
#
# install: the native messaging host — BINDIR/blocker-browser-host, a link to
# BINDIR/blockerctl (run under that name, blockerctl is the host; blockerd
# believes only the blockerctl beside it) — and its manifests for Chromium,
# Google Chrome and Firefox under $HOME, each naming only blocker's extension
# (Chromium's fixed id, Firefox's blocker@blockerd.github.io); then the
# extension itself in $XDG_DATA_HOME/blocker/browser-extension/ (and zipped,
# browser-extension.xpi, for Firefox), for the user to load (a browser installs
# an extension only when its user says so), and what to do in each browser.
# uninstall: removes the link, the manifests, that directory and the .xpi.
#
# browser-extension.sh manifest chromium|firefox BINDIR — prints the host's
# manifest for that browser family (the Debian package's system-wide ones).
set -euo pipefail
action=${1:-}
if [ "$action" = manifest ]; then
    family=${2:-}
    bindir=${3:-}
else
    bindir=${2:-}
fi
[[ $action == install || $action == uninstall || $action == manifest ]] && [[ $bindir == /* ]] ||
    { echo "usage: scripts/browser-extension.sh install|uninstall BINDIR, or manifest chromium|firefox BINDIR (an absolute path)" >&2
      exit 2; }
source_dir=$(cd "$(dirname "$0")/../extensions/browser" && pwd)
data_home=${XDG_DATA_HOME:-}
[[ $data_home == /* ]] || data_home=$HOME/.local/share
config_home=${XDG_CONFIG_HOME:-}
[[ $config_home == /* ]] || config_home=$HOME/.config
target=$data_home/blocker/browser-extension
host=io.github.blockerd.browser
chromium_id=odiodcdhnedmbninoipfbpmcfnhbmjof
gecko_id=blocker@blockerd.github.io
# Where each browser looks for a user's native messaging hosts.
chromium_dirs=("$config_home/chromium/NativeMessagingHosts" "$config_home/google-chrome/NativeMessagingHosts")
firefox_dir=$HOME/.mozilla/native-messaging-hosts
# What the extension is made of (not its signing key, which only fixes the id).
files=(manifest.json background.js block.html block.js block.css)

say() { echo "browser extension: $*"; }

manifest() { # ALLOWED_KEY ALLOWED_VALUE
    cat <<JSON
{
  "name": "$host",
  "description": "blocker: the site of the tab in front",
  "path": "$bindir/blocker-browser-host",
  "type": "stdio",
  "$1": ["$2"]
}
JSON
}

if [ "$action" = manifest ]; then
    case $family in
        chromium) manifest allowed_origins "chrome-extension://$chromium_id/" ;;
        firefox) manifest allowed_extensions "$gecko_id" ;;
        *) echo "browser-extension.sh: manifest for chromium or firefox, not \"$family\"" >&2; exit 2 ;;
    esac
    exit 0
fi

if [ "$action" = uninstall ]; then
    rm -f "$bindir/blocker-browser-host" "$firefox_dir/$host.json"
    for dir in "${chromium_dirs[@]}"; do rm -f "$dir/$host.json"; done
    rm -rf "$target" "$target.xpi"
    exit 0
fi

[ -x "$bindir/blockerctl" ] || { echo "browser-extension.sh: $bindir/blockerctl is not installed" >&2; exit 1; }
ln -sfn blockerctl "$bindir/blocker-browser-host"
for dir in "${chromium_dirs[@]}"; do
    mkdir -p "$dir"
    "$0" manifest chromium "$bindir" >"$dir/$host.json"
done
mkdir -p "$firefox_dir"
"$0" manifest firefox "$bindir" >"$firefox_dir/$host.json"
rm -rf "$target"
mkdir -p "$target"
for file in "${files[@]}"; do install -m 644 "$source_dir/$file" "$target/$file"; done
# Firefox installs an add-on from a file: the same files zipped (an .xpi).
rm -f "$target.xpi"
(cd "$target" && python3 -m zipfile -c "$target.xpi" "${files[@]}")
say "the host is $bindir/blocker-browser-host; the extension is in $target"
say "Chromium: chrome://extensions, Developer mode, Load unpacked: $target (for private windows: Details, Allow in Incognito)"
say "Firefox ESR: about:config, xpinstall.signatures.required = false; about:addons, Install Add-on From File: $target.xpi"
