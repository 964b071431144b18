#!/usr/bin/env bash
# itest-gnome-esm-stub.sh — the GNOME 45+ (ES module) variant of blocker's
# extension, against a STUB shell (GNOME 45+ cannot run here; GNOME 43 is
# tested for real by itest-gnome.sh). Installs it as `make install-files`
# would for GNOME 45 (GNOME_SHELL_VERSION=45 scripts/gnome-extension.sh), then
# runs scripts/lib/gnome-esm-stub/run-stub-test.js under `gjs -m` with a
# compiled stub GResource for resource:///org/gnome/shell/…, the real gi://
# libraries and a real private session bus. See that file for the checks.
# Then the same for the TEST-ONLY driver extension's GNOME 45+ entry point
# (scripts/lib/gnome-test-extension/install.sh DIR 48), which itest-gnome48.sh
# runs on a real GNOME 48: scripts/lib/gnome-esm-stub/run-driver-stub-test.js.
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
stub_test() { # WHAT SCRIPT DIR — SCRIPT under gjs -m against the stub shell, its "ok:" lines printed
    DBUS_SESSION_BUS_ADDRESS=$address GI_TYPELIB_PATH=/usr/lib/gnome-shell:/usr/lib/x86_64-linux-gnu/mutter-11 \
        LD_LIBRARY_PATH=/usr/lib/gnome-shell:/usr/lib/x86_64-linux-gnu/mutter-11 NO_AT_BRIDGE=1 \
        timeout 30 gjs -m "scripts/lib/gnome-esm-stub/$2" "$fx_dir/stub.gresource" "$3" >"$fx_dir/gjs.log" 2>&1 \
        || fail "$1 against the stub shell: $(tail -n 8 "$fx_dir/gjs.log")"
    sed -n "s/^ok: /$fx_name: ok: /p" "$fx_dir/gjs.log"
}
stub_test "the ES-module extension" run-stub-test.js "$ext"

driver=$fx_dir/driver
scripts/lib/gnome-test-extension/install.sh "$driver" 48
grep -q '"48"' "$driver/metadata.json" && grep -q "export default class" "$driver/extension.js" && [ -f "$driver/core.js" ] \
    || fail "install.sh DIR 48 did not install the driver's ES-module entry point: $(ls "$driver")"
ok "test driver: install.sh DIR 48 installed core.js and the ES-module entry point (45–49)"
stub_test "the test driver's ES-module entry point" run-driver-stub-test.js "$driver"
