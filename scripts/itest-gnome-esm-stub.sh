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
fx_need gjs glib-compile-resources dbus-daemon xgettext msgfmt

data=$fx_dir/data
env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=/nonexistent XDG_DATA_HOME="$data" GNOME_SHELL_VERSION=45 \
    scripts/gnome-extension.sh install >"$fx_dir/install.log" 2>&1 || fail "gnome-extension.sh install: $(cat "$fx_dir/install.log")"
ext=$data/gnome-shell/extensions/blocker@blockerd.github.io
grep -q '"45"' "$ext/metadata.json" || fail "GNOME 45 got the wrong metadata.json: $(cat "$ext/metadata.json")"
grep -q "export default class" "$ext/extension.js" || fail "GNOME 45 got the legacy entry point"
for lang in fr it nl pt; do
    [ -f "$ext/locale/$lang/LC_MESSAGES/blocker-gnome-shell.mo" ] || fail "install put no $lang translation into $ext/locale"
done
grep -q "gnome-extensions enable blocker@blockerd.github.io" "$fx_dir/install.log" \
    || fail "without a session bus the install did not say how to enable it: $(cat "$fx_dir/install.log")"
ok "GNOME_SHELL_VERSION=45: the ES-module entry point, its metadata.json (45–49) and locale/{fr,it,nl,pt} installed; no bus: says how to enable"

stubs=scripts/lib/gnome-esm-stub/shell
glib-compile-resources --sourcedir="$stubs" --target="$fx_dir/stub.gresource" "$stubs/stub.gresource.xml"
read -r address pid < <(fx_session_bus "$fx_dir") || fail "dbus-daemon did not start"
fx_track "$pid"
stub_test() { # WHAT SCRIPT DIR — SCRIPT under gjs -m against the stub shell, its "ok:" lines printed
    LANG=C.UTF-8 DBUS_SESSION_BUS_ADDRESS=$address GI_TYPELIB_PATH=/usr/lib/gnome-shell:/usr/lib/x86_64-linux-gnu/mutter-11 \
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

# The upload for extensions.gnome.org: `gnome-extension.sh pack` (make
# gnome-extension-zip), what it holds, and the static check it passes.
lint=scripts/lib/gnome-extension-lint.py
scripts/gnome-extension.sh pack "$fx_dir/zip" >"$fx_dir/pack.log" 2>&1 || fail "gnome-extension.sh pack: $(cat "$fx_dir/pack.log")"
zip=$fx_dir/zip/blocker@blockerd.github.io.shell-extension.zip
[ -f "$zip" ] || fail "gnome-extension.sh pack made no $zip: $(cat "$fx_dir/pack.log")"
python3 - "$zip" <<'PY' || fail "the zip's contents or metadata are wrong"
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = sorted(n for n in z.namelist() if not n.endswith('/'))
mo = [f'locale/{lang}/LC_MESSAGES/blocker-gnome-shell.mo' for lang in ('fr', 'it', 'nl', 'pt')]
assert names == ['core.js', 'extension.js', *mo, 'metadata.json', 'stylesheet.css'], names
meta = json.loads(z.read('metadata.json'))
assert meta['shell-version'] == ['45', '46', '47', '48', '49'], meta['shell-version']
assert meta['uuid'] == 'blocker@blockerd.github.io' and meta['url'], meta
assert meta['gettext-domain'] == 'blocker-gnome-shell', meta
assert b'export default class' in z.read('extension.js')
PY
python3 "$lint" "$zip" >"$fx_dir/lint.log" || fail "the packed extension fails the static check: $(cat "$fx_dir/lint.log")"
ok "pack: $(basename "$zip") holds metadata.json (45–49, url, gettext-domain), extension.js (ES module), core.js, stylesheet.css, locale/{fr,it,nl,pt}; the static check passes"

# The translations (po/gnome-shell/): the template has every word core.js
# marks now, and each LL.po translates them all, keeping each {name}.
xgettext --language=JavaScript --from-code=UTF-8 --keyword=_ --keyword=ngettext:1,2 --no-wrap \
    -o "$fx_dir/now.pot" extensions/gnome-shell/core.js
python3 - "$fx_dir/now.pot" po/gnome-shell "$ext/locale" <<'PY' || fail "po/gnome-shell is not up to date with core.js (scripts/gnome-extension.sh pot, then translate)"
import gettext, pathlib, re, sys
now, po_dir, locale = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
def msgids(path):  # one line each (--no-wrap); the header's "" left out
    return {re.sub(r'\\(.)', r'\1', m) for m in re.findall(r'^msgid "(.+)"$', open(path, encoding='utf-8').read(), re.M)}
words = msgids(now)
template = msgids(po_dir / 'blocker-gnome-shell.pot')
assert words == template, f'core.js has {sorted(words - template)}, the template {sorted(template - words)}'
names = lambda text: sorted(re.findall(r'\{[a-z]+\}', text))
for po in sorted(po_dir.glob('*.po')):
    lang = po.stem
    catalog = gettext.GNUTranslations(open(locale / lang / 'LC_MESSAGES/blocker-gnome-shell.mo', 'rb'))._catalog
    texts = {(k[0] if isinstance(k, tuple) else k): v for k, v in catalog.items() if k != ''}
    assert set(texts) == words, f'{lang}: untranslated {sorted(words - set(texts))}'
    for key, text in catalog.items():
        msgid = key[0] if isinstance(key, tuple) else key
        assert key == '' or names(text) == names(msgid), f'{lang}: "{text}" does not keep the names of "{msgid}"'
PY
for po in po/gnome-shell/*.po; do
    msgfmt --check --statistics -o /dev/null "$po" 2>"$fx_dir/msgfmt.log" || fail "msgfmt --check $po: $(cat "$fx_dir/msgfmt.log")"
    if grep -Eq "untranslated|fuzzy" "$fx_dir/msgfmt.log"; then fail "$po is not complete: $(cat "$fx_dir/msgfmt.log")"; fi
done
ok "translations: the template has core.js's $(($(grep -c '^msgid ' "$fx_dir/now.pot") - 1)) words; $(basename -s .po po/gnome-shell/*.po | tr '\n' ' ')translate them all (msgfmt --check), keeping each {name}"

# The check itself: a clean extension passes; each rule catches its fault.
good=$fx_dir/lint/good
mkdir -p "$good"
cat >"$good/metadata.json" <<'JSON'
{"uuid": "lint@blockerd.github.io", "name": "lint", "description": "A test.", "shell-version": ["48"],
 "url": "https://example.org/lint", "gettext-domain": "lint"}
JSON
# A .mo's first bytes (no UTF-8): the check reads no file it does not check.
mkdir -p "$good/locale/fr/LC_MESSAGES"
printf '\xde\x12\x04\x95' >"$good/locale/fr/LC_MESSAGES/lint.mo"
cat >"$good/extension.js" <<'JS'
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
const WORDS = Object.freeze(['a', 'b']);

export default class LintExtension extends Extension {
    enable() {
        this._id = Main.layoutManager.connect('monitors-changed', () => this._changed(WORDS));
    }

    _changed(words) {
        return words.length / 2;
    }

    disable() {
        Main.layoutManager.disconnect(this._id);
    }
}
JS
printf '.a { font-family: "DejaVu Sans", Cantarell, sans-serif; }\n' >"$good/stylesheet.css"
python3 "$lint" "$good" >"$fx_dir/lint.log" || fail "the static check fails a clean extension: $(cat "$fx_dir/lint.log")"
faulty() { # RULE WHAT FILE SED-SCRIPT — a copy of the clean extension with FILE edited must fail with RULE
    local dir=$fx_dir/lint/$1-$RANDOM
    cp -r "$good" "$dir"
    sed -i "$4" "$dir/$3"
    if python3 "$lint" "$dir" >"$fx_dir/lint.log"; then fail "the static check passed $2"; fi
    grep -q ": $1: " "$fx_dir/lint.log" || fail "$2: not found as $1: $(cat "$fx_dir/lint.log")"
}
faulty sync-call "a call_sync( in enable()" extension.js \
    's|^    enable() {|&\n        Gio.DBus.session.call_sync(null, "/", "a.b", "C", null, null, 0, -1, null);|'
faulty sync-call "Gio.DBusProxy.new_for_bus_sync(" extension.js \
    's|^    disable() {|&\n        this._p = Gio.DBusProxy.new_for_bus_sync(Gio.BusType.SESSION, 0, null, "a.b", "/", "a.b", null);|'
faulty top-level "a top-level call" extension.js 's|^const WORDS.*|&\nMain.panel.addToStatusArea("lint", null);|'
faulty top-level "a top-level new" extension.js 's|^const WORDS.*|&\nconst settings = new Gio.Settings({schema_id: "a.b"});|'
faulty enable-disable "a connect( in enable() with no disconnect( in disable()" extension.js \
    's|^        Main.layoutManager.disconnect(this._id);|        this._id = 0;|'
faulty eval "eval(" extension.js 's|^        return words.length / 2;|        return eval("1");|'
faulty stylesheet "a quoted font family after the first" stylesheet.css 's|Cantarell|"Cantarell"|'
faulty metadata "no url" metadata.json 's|"url"|"homepage"|'
faulty locale "a .mo not named for the gettext-domain" metadata.json 's|"gettext-domain": "lint"|"gettext-domain": "other"|'
ok "static check: a clean extension passes; caught: call_sync(, Gio.DBusProxy.new_for_bus_sync(, a top-level call, a top-level new, connect( without disconnect(, eval(, a quoted second font family, no url, a .mo not named for the gettext-domain"
