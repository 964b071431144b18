# shellcheck shell=bash
# browser-env.sh — real Chromium and Firefox ESR with blocker's WebExtension
# (extensions/browser/), for itest-browser.sh (sourced after fixtures.sh and
# fx_begin, on an X session from fx_x_session).
#
# A local web server stands in for the sites; the browsers map the sites' names
# to it (Chromium: --host-resolver-rules, Firefox: network.dns.forceResolve),
# so the URLs carry its port: http://www.video.example:PORT/youtube.html. The
# native messaging host is whatever program the test gives (be_native_manifests).
#
# Every function that starts a process tracks it (fx_track) and sets a global
# ($be_port, $be_chromium_pid, $be_firefox_pid) besides printing it: call them in
# the current shell, not in $(…), or the process would not be tracked (they fail then).

be_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
be_extension=$be_repo/extensions/browser
# The extension's fixed Chromium id: the manifest's `key` (extensions/browser/README.md).
be_chromium_id=odiodcdhnedmbninoipfbpmcfnhbmjof
be_gecko_id=blocker@blockerd.github.io
be_host_name=io.github.blockerd.browser
# The names the pages are reached by; each one is mapped to the local server.
# .example names: youtube.com is on the HSTS preload list, so a browser goes to
# it only over https, which a plain local server cannot answer.
be_site_hosts=(www.video.example m.video.example news.example)
be_port=
be_chromium_pid=
be_firefox_pid=

be_in_current_shell() {
    [ "$BASHPID" = "${fx_shell:-$$}" ] || fail "$1 ran in a subshell (\$(…)?): what it starts would not be stopped"
}

# be_http_server DIR — python3's http.server on 127.0.0.1, on a port it picks
# itself (port 0, read back from its first line: no race for a free port),
# serving DIR with youtube.html and news.html; sets $be_port and prints it.
be_http_server() {
    local dir=$1 pid log
    be_in_current_shell be_http_server
    mkdir -p "$dir"
    be_page "$dir/youtube.html" "YouTube (blocker test)" "A video site, blocker's test stand-in."
    be_page "$dir/news.html" "News (blocker test)" "A news site, blocker's test stand-in."
    log=$fx_dir/http-server.log
    python3 -u -m http.server --bind 127.0.0.1 --directory "$dir" 0 >"$log" 2>&1 &
    pid=$!
    fx_track "$pid"
    be_port=
    for _ in $(seq 100); do
        be_port=$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$log" | head -1)
        [ -n "$be_port" ] && break
        fx_alive "$pid" || break
        sleep 0.05
    done
    [ -n "$be_port" ] || fail "http.server did not start"
    echo "$be_port"
}

# be_page FILE TITLE TEXT — a small page, titled distinctly (the window title shows which).
be_page() {
    cat >"$1" <<HTML
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>$2</title></head>
<body style="background:#f4f0e6;font:24px sans-serif;padding:40px"><h1>$2</h1><p>$3</p></body></html>
HTML
}

# be_native_manifests HOME HOST_PROGRAM — the native messaging host manifests
# naming HOST_PROGRAM (an absolute path) for Chromium and Firefox under HOME.
be_native_manifests() {
    local home=$1 program=$2
    case $program in /*) ;; *) fail "be_native_manifests: $program is not an absolute path" ;; esac
    mkdir -p "$home/.config/chromium/NativeMessagingHosts" "$home/.mozilla/native-messaging-hosts"
    cat >"$home/.config/chromium/NativeMessagingHosts/$be_host_name.json" <<JSON
{
  "name": "$be_host_name",
  "description": "blocker: the tab in front",
  "path": "$program",
  "type": "stdio",
  "allowed_origins": ["chrome-extension://$be_chromium_id/"]
}
JSON
    cat >"$home/.mozilla/native-messaging-hosts/$be_host_name.json" <<JSON
{
  "name": "$be_host_name",
  "description": "blocker: the tab in front",
  "path": "$program",
  "type": "stdio",
  "allowed_extensions": ["$be_gecko_id"]
}
JSON
}

# be_config FILE — blockerd's config for the browser runs: the x11 probe, the
# site video.example metered (group video), the browsers' windows not.
be_config() {
    cat >"$1" <<'TOML'
[daemon]
probe = "x11"
poll-interval = "1s"
[earn]
pushups = 0.5
[[group]]
name = "video"
sites = ["video.example"]
[[group]]
name = "browsers"
apps = ["chromium", "firefox-esr", "firefox"]
metered = false
TOML
}

# be_url PORT HOST PAGE — the URL of PAGE on the local server under the name HOST.
be_url() { echo "http://$2:$1/$3"; }

# --- Chromium ------------------------------------------------------------------

# be_chromium_flags HOME — the flags of every launch on the profile under HOME.
be_chromium_flags() {
    local home=$1 rules=() host
    for host in "${be_site_hosts[@]}"; do rules+=("MAP $host 127.0.0.1"); done
    local IFS=,
    be_flags=(
        # Chromium looks for user-level native messaging hosts in its user data
        # directory: the default one, under the fresh HOME.
        --user-data-dir="$home/.config/chromium"
        # Debian's chromium 156 still honours --load-extension (Google Chrome
        # 137+ dropped it); /etc/chromium.d/extensions passes an empty one first,
        # the last one wins.
        --load-extension="$be_extension"
        --no-first-run --no-default-browser-check --password-store=basic --disable-gpu
        # No sign-in, sync, component updates or field trials talking to Google.
        --disable-background-networking --disable-sync --disable-component-update
        --host-resolver-rules="${rules[*]}"
        # The pages are plain http on a port of their own: no upgrade attempt to https.
        --disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable
        # The tests run as root, and Chromium's zygote sandbox refuses root.
        --no-sandbox
        # Seen in window titles and screenshots: one window size for every run.
        --window-size=1100,700 --window-position=0,0
        # The extension's console (console.warn) in chromium.log.
        --enable-logging=stderr
    )
}

# be_chromium HOME PORT URL… — real Chromium (a normal window, not headless)
# on $DISPLAY with blocker's extension, a fresh profile under HOME, opening
# URL…; sets $be_chromium_pid (the browser's main process) and prints it.
be_chromium() {
    local home=$1 port=$2
    shift 2
    be_in_current_shell be_chromium
    be_chromium_flags "$home"
    be_chromium_seed "$home/.config/chromium"
    # /usr/bin/chromium is a shell script that execs the browser: $! is the browser.
    HOME=$home chromium "${be_flags[@]}" "$@" >>"$fx_dir/chromium.log" 2>&1 &
    be_chromium_pid=$!
    fx_track "$be_chromium_pid"
    : "$port"
    echo "$be_chromium_pid"
}

# be_chromium_system HOME URL… — real Chromium with blocker's extension where
# the Debian package puts it: Debian's chromium wrapper (/etc/chromium.d/extensions)
# loads every directory in /usr/share/chromium/extensions/. That directory is
# made in a private mount namespace (a copy of /usr/share/chromium bound over
# it, with extensions/blocker the extension), so the machine's is untouched;
# no --load-extension of ours. Sets $be_chromium_pid and prints it.
be_chromium_system() {
    local home=$1 share=$fx_dir/usr-share-chromium flag flags=()
    shift
    be_in_current_shell be_chromium_system
    be_chromium_flags "$home"
    for flag in "${be_flags[@]}"; do [[ $flag == --load-extension=* ]] || flags+=("$flag"); done
    be_chromium_seed "$home/.config/chromium"
    mkdir -p "$share"
    cp -a /usr/share/chromium/. "$share/"
    mkdir -p "$share/extensions"
    cp -a "$be_extension" "$share/extensions/blocker"
    # unshare and bash exec: $! is the browser, as with be_chromium.
    HOME=$home unshare --mount --propagation private -- bash -c \
        'mount --bind "$1" /usr/share/chromium && shift && exec chromium "$@"' be-chromium "$share" "${flags[@]}" "$@" \
        >>"$fx_dir/chromium.log" 2>&1 &
    be_chromium_pid=$!
    fx_track "$be_chromium_pid"
    echo "$be_chromium_pid"
}

# be_chromium_seed PROFILE — a profile in which blocker's extension may run in
# incognito windows (the switch "Allow in Incognito" on chrome://extensions).
#
# Chromium keeps that switch as extensions.settings.ID.incognito in the
# profile's Preferences; on Linux those settings carry MACs but are not
# enforced, and loading the extension from --load-extension keeps the key.
be_chromium_seed() {
    mkdir -p "$1/Default"
    [ -e "$1/Default/Preferences" ] && return 0
    cat >"$1/Default/Preferences" <<JSON
{"extensions": {"settings": {"$be_chromium_id": {"incognito": true}}}}
JSON
}

# be_chromium_private HOME URL… — an incognito window in the Chromium already
# running on HOME's profile (a second launch hands its command line to it and exits).
be_chromium_private() {
    local home=$1
    shift
    be_chromium_flags "$home"
    HOME=$home chromium "${be_flags[@]}" --incognito "$@" >>"$fx_dir/chromium.log" 2>&1
}

# --- Firefox ESR -------------------------------------------------------------------

# be_xpi FILE — blocker's extension zipped as an .xpi.
be_xpi() {
    rm -f "$1"
    (cd "$be_extension" && zip -q -r -X "$1" manifest.json background.js block.html block.js block.css)
}

# be_firefox HOME PORT URL… — real Firefox ESR with a fresh profile under HOME
# and blocker's extension installed in it; sets $be_firefox_pid and prints it.
be_firefox() {
    local home=$1 port=$2 profile=$1/firefox-profile
    shift 2
    be_in_current_shell be_firefox
    mkdir -p "$profile/extensions"
    be_xpi "$profile/extensions/$be_gecko_id.xpi"
    be_firefox_prefs "$profile/user.js"
    # "Run in Private Windows": the permission Firefox records when the user
    # ticks it (about:addons), seeded before the first start.
    [ -e "$profile/extension-preferences.json" ] || cat >"$profile/extension-preferences.json" <<JSON
{"$be_gecko_id": {"permissions": ["internal:privateBrowsingAllowed"], "origins": []}}
JSON
    : "$port"
    HOME=$home MOZ_CRASHREPORTER_DISABLE=1 firefox-esr --no-remote --profile "$profile" "$@" >>"$fx_dir/firefox.log" 2>&1 &
    be_firefox_pid=$!
    fx_track "$be_firefox_pid"
    echo "$be_firefox_pid"
}

be_firefox_prefs() {
    cat >"$1" <<'JS'
// An unsigned add-on: ESR (and Developer/Nightly) honour this, release Firefox does not.
user_pref("xpinstall.signatures.required", false);
// Add-ons dropped into the profile are enabled without asking.
user_pref("extensions.autoDisableScopes", 0);
user_pref("extensions.enabledScopes", 15);
// Every site name goes to the local server (the URLs carry its port).
user_pref("network.dns.forceResolve", "127.0.0.1");
user_pref("network.proxy.type", 0);
user_pref("dom.security.https_first", false);
user_pref("dom.security.https_first_pbm", false);
user_pref("dom.security.https_only_mode", false);
// Quiet: no first-run pages, updates, telemetry or questions.
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.auto", false);
user_pref("app.update.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("browser.tabs.warnOnClose", false);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.startup.page", 0);
// The browser console (manifest warnings, the extension's console.warn) in firefox.log.
user_pref("devtools.console.stdout.chrome", true);
JS
}
