#!/usr/bin/env bash
# itest-gnome-esm-stub.sh — the GNOME 45+ (ES module) variant of blocker's
# extension, against a STUB shell (GNOME 45+ cannot run here; GNOME 43 is
# tested for real by itest-gnome.sh). Installs it as `make install-files`
# would for GNOME 45 (GNOME_SHELL_VERSION=45 scripts/gnome-extension.sh), then
# runs scripts/lib/gnome-esm-stub/run-stub-test.js under `gjs -m` with a
# compiled stub GResource for resource:///org/gnome/shell/…, the real gi://
# libraries and a real private session bus. See that file for the checks.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
fx_begin itest-gnome-esm-stub
for tool in gjs glib-compile-resources dbus-daemon; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (make check installs the test dependencies)"
done

data=$fx_dir/data
env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=/nonexistent XDG_DATA_HOME="$data" GNOME_SHELL_VERSION=45 \
    scripts/gnome-extension.sh install >"$fx_dir/install.log" 2>&1 || fail "gnome-extension.sh install: $(cat "$fx_dir/install.log")"
ext=$data/gnome-shell/extensions/blocker@blockerd.github.io
grep -q '"45"' "$ext/metadata.json" || fail "GNOME 45 got the wrong metadata.json: $(cat "$ext/metadata.json")"
grep -q "export default class" "$ext/extension.js" || fail "GNOME 45 got the legacy entry point"
grep -q "gnome-extensions enable blocker@blockerd.github.io" "$fx_dir/install.log" \
    || fail "without a session bus the install did not say how to enable it: $(cat "$fx_dir/install.log")"
ok "GNOME_SHELL_VERSION=45: the ES-module entry point and its metadata.json (45–49) installed; no bus: says how to enable"

stubs=scripts/lib/gnome-esm-stub/shell
glib-compile-resources --sourcedir="$stubs" --target="$fx_dir/stub.gresource" "$stubs/stub.gresource.xml"
read -r address pid < <(fx_session_bus "$fx_dir") || fail "dbus-daemon did not start"
fx_track "$pid"
DBUS_SESSION_BUS_ADDRESS=$address GI_TYPELIB_PATH=/usr/lib/gnome-shell:/usr/lib/x86_64-linux-gnu/mutter-11 \
    LD_LIBRARY_PATH=/usr/lib/gnome-shell:/usr/lib/x86_64-linux-gnu/mutter-11 NO_AT_BRIDGE=1 \
    timeout 30 gjs -m scripts/lib/gnome-esm-stub/run-stub-test.js "$fx_dir/stub.gresource" "$ext" >"$fx_dir/gjs.log" 2>&1 \
    || fail "the ES-module extension against the stub shell: $(tail -n 8 "$fx_dir/gjs.log")"
sed "s/^ok: /$fx_name: ok: /" "$fx_dir/gjs.log"
