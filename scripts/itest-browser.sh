#!/usr/bin/env bash
# itest-browser.sh — issue 24 ("Websites share the budget"), done as a user
# would, in real browsers: Chromium (Debian's chromium) and Firefox ESR, each a
# normal window on Xvfb + openbox seen by blockerd's x11 probe, with blocker's
# extension (extensions/browser/) installed as the Debian package does for
# Chromium (/usr/share/chromium/extensions/blocker, in a private mount
# namespace) and as a user does in Firefox ESR (the .xpi in the profile), its
# native messaging host (blocker-browser-host, a link to the built blockerctl,
# and its manifests, installed by scripts/browser-extension.sh as `make
# install` does) and a local web server standing in for the sites
# (scripts/lib/browser-env.sh).
#
# For each browser:
#   1. the site's tab in front is charged (the window alone is in no metered group);
#   2. a tab switch to another site stops the charge (the time to blockerd's new verdict is said);
#   3. at zero the tab shows blocker's page (no window cover: none runs here), and
#      another tab still works; back on the blocked tab, the page again;
#   4. earning from that page (reps typed, Enter) lifts it: the site's page is back;
#   5. a private window's tab is reported private;
# and ReportTab from another program (gdbus) is refused (AccessDenied).
# Exit 0 pass, 1 fail; a missing browser or tool is a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/fixtures.sh
source "$here/lib/fixtures.sh"
# shellcheck source=lib/browser-env.sh
source "$here/lib/browser-env.sh"
fx_begin itest-browser
fx_programs blockerd blockerctl
fx_need Xvfb openbox xdotool xprop python3 chromium firefox-esr zip import gdbus
fx_private_session
fx_x_session "$fx_dir"
[ -r /usr/share/publicsuffix/public_suffix_list.dat ] || fail "the Public Suffix List is not installed (apt-get install publicsuffix)"

# Installed as `make install` does it (scripts/browser-extension.sh): the host
# link beside blockerctl (a link to the built one, so blockerd, built beside
# it, believes it) and its manifests under $HOME.
mkdir -p "$fx_dir/bin"
ln -s "$bin/blockerctl" "$fx_dir/bin/blockerctl"
"$here/browser-extension.sh" install "$fx_dir/bin" >"$fx_dir/install.log" || fail "browser-extension.sh install failed"
for manifest in .config/chromium/NativeMessagingHosts .mozilla/native-messaging-hosts; do
    grep -q "\"path\": \"$fx_dir/bin/blocker-browser-host\"" "$HOME/$manifest/io.github.blockerd.browser.json" ||
        fail "no native messaging manifest naming the host in ~/$manifest"
done
[ -f "$HOME/.local/share/blocker/browser-extension.xpi" ] || fail "no .xpi for Firefox after the install"
# The browsers load the installed copy (Chromium: Load unpacked; Firefox: its files, zipped).
be_extension=$HOME/.local/share/blocker/browser-extension
be_http_server "$fx_dir/www" >/dev/null
video=$(be_url "$be_port" m.video.example youtube.html)
news=$(be_url "$be_port" news.example news.html)

status() { "$bin/blockerctl" status --json | fx_json "$1"; }
tab_site() { status '((s["foreground"] or {}).get("tab") or {}).get("site")'; }
balance() { status 's["balance_ms"]'; }
# The title of the active window (the browser's title follows its active tab).
front_title() { xdotool getactivewindow getwindowname 2>/dev/null || true; }

# run_browser NAME CLASS START... — the five steps in one browser; START starts
# it (be_chromium / be_firefox) with the video tab first, the news tab second.
run_browser() {
    local name=$1 class=$2 private_start=$3
    shift 3
    fx_nested "$name"
    local config=$fx_dir/blocker.toml
    be_config "$config"
    "$bin/blockerd" --config "$config" --state-dir "$fx_dir/state" >>"$fx_dir/daemon.log" 2>&1 &
    local daemon=$!
    fx_track $daemon
    fx_wait_daemon "$bin" || fail "$name: blockerd did not answer Status"
    "$bin/blockerctl" earn 1 pushups >/dev/null || fail "$name: blockerctl earn failed"
    # Nobody but the host the browser started may speak for a tab.
    local refused
    refused=$(gdbus call --session --dest io.github.blockerd.Blocker1 --object-path /io/github/blockerd/Blocker1 \
        --method io.github.blockerd.Blocker1.ReportTab youtube.com false true false 2>&1) &&
        fail "$name: ReportTab from gdbus was taken: $refused"
    [[ $refused == *AccessDenied* ]] || fail "$name: ReportTab from gdbus failed otherwise than AccessDenied: $refused"

    "$@" >/dev/null
    local window
    window=$(fx_x_window "$class") || fail "$name: no $class window on $DISPLAY"
    fx_x_activate "$window" || fail "$name: openbox did not activate the browser"
    # 1. The extension reports the video tab; blockerd charges it.
    fx_wait 30 eval '[ "$(tab_site)" = video.example ]' ||
        fail "$name: blockerd never heard the video tab from the extension (front: $(status 's["foreground"]'))"
    [ "$(status '(s["foreground"] or {})["groups"]')" = "['video']" ] ||
        fail "$name: the video tab is not in the video group: $(status 's["foreground"]')"
    local before after
    before=$(balance); sleep 2; after=$(balance)
    [ $((before - after)) -ge 1500 ] || fail "$name: the video tab was charged $((before - after)) ms in 2 s"
    ok "$name 1: the video tab in front is charged ($((before - after)) ms of 2 s; front: $(status 's["foreground"]["app"], s["foreground"]["tab"]'))"

    # 2. A tab switch to the news site: the next verdict, and nothing charged after it.
    local pressed heard
    pressed=$(fx_now_ms)
    xdotool key --clearmodifiers ctrl+Tab
    fx_wait 5 eval '[ "$(tab_site)" = news.example ]' || fail "$name: blockerd did not hear the switch to the news tab"
    heard=$(fx_now_ms)
    sleep 0.3
    before=$(balance); sleep 2; after=$(balance)
    [ "$before" = "$after" ] || fail "$name: the news tab was charged $((before - after)) ms in 2 s"
    ok "$name 2: a switch to the news tab was told to blockerd $((heard - pressed)) ms after the key (read by polling status); nothing charged on it after"

    # 3. Back on the video tab until the balance is gone: blocker's page in the tab.
    xdotool key --clearmodifiers ctrl+Tab
    fx_wait 5 eval '[ "$(tab_site)" = video.example ]' || fail "$name: the switch back to the video tab was not heard"
    fx_wait 40 eval '[ "$(status "s[\"shield\"].get(\"site\")")" = video.example ]' ||
        fail "$name: no site shield once the balance ran out: $(status 's["shield"]')"
    fx_wait 10 eval '[[ "$(front_title)" == *"video.example — blocker"* ]]' ||
        fail "$name: the tab does not show blocker's page (title: $(front_title))"
    fx_wait 5 eval '[ "$(status "((s[\"foreground\"] or {}).get(\"tab\") or {}).get(\"covered\")")" = True ]' ||
        fail "$name: the extension did not say its page covers the tab: $(status 's["foreground"]')"
    [ "$name" = chromium ] && import -window root "$here/../docs/browser-block.png"
    xdotool key --clearmodifiers ctrl+Tab
    fx_wait 5 eval '[ "$(tab_site)" = news.example ]' || fail "$name: the news tab was not heard under the video site's shield"
    fx_wait 5 eval '[ "$(status "s[\"shield\"][\"active\"]")" = False ]' || fail "$name: the news tab is shielded too: $(status 's["shield"]')"
    fx_wait 5 eval '[[ "$(front_title)" == *"News (blocker test)"* ]]' || fail "$name: the news tab does not show its page ($(front_title))"
    xdotool key --clearmodifiers ctrl+Tab
    fx_wait 5 eval '[ "$(status "s[\"shield\"].get(\"site\")")" = video.example ]' || fail "$name: back on the blocked tab, no shield"
    ok "$name 3: at zero the video tab shows blocker's page (shield: $(status 's["shield"]["reason"] + " on " + s["shield"]["site"]'), no window cover); the news tab still works"

    # 4. Earning on the page: the reps field has the focus; 2 reps, Enter.
    fx_wait 5 eval '[[ "$(front_title)" == *"video.example — blocker"* ]]' || fail "$name: blocker's page is not in front ($(front_title))"
    sleep 0.5
    xdotool type --delay 50 2
    xdotool key Return
    fx_wait 10 eval '[ "$(balance)" -gt 0 ]' || fail "$name: earning from blocker's page did not reach blockerd"
    fx_wait 10 eval '[[ "$(front_title)" == *"YouTube (blocker test)"* ]]' ||
        fail "$name: the video page did not come back after the earning (title: $(front_title))"
    [ "$(status 's["shield"]["active"]')" = False ] || fail "$name: still shielded after earning: $(status 's["shield"]')"
    ok "$name 4: earning 2 pushups on blocker's page lifted it (balance $(balance) ms); the video page is back"

    # 5. A private window: its tab is reported private.
    "$private_start" "$HOME" "$news"
    fx_wait 20 eval '[ "$(status "((s[\"foreground\"] or {}).get(\"tab\") or {}).get(\"private\")")" = True ]' ||
        fail "$name: the private window's tab was not reported private: $(status 's["foreground"]')"
    ok "$name 5: a private window's tab is reported private ($(status 's["foreground"]["tab"]'))"
}

chromium_private() { be_chromium_private "$@"; }
firefox_private() {
    HOME=$1 MOZ_CRASHREPORTER_DISABLE=1 firefox-esr --profile "$1/firefox-profile" --private-window "$2" \
        >>"$fx_dir/firefox.log" 2>&1
}

# Chromium as the Debian package installs it (its wrapper loads /usr/share/chromium/extensions/*).
(run_browser chromium Chromium chromium_private be_chromium_system "$HOME" "$video" "$news") || exit 1
(run_browser firefox firefox-esr firefox_private be_firefox "$HOME" "$be_port" "$video" "$news") || exit 1

"$here/browser-extension.sh" uninstall "$fx_dir/bin" || fail "browser-extension.sh uninstall failed"
left=$(find "$fx_dir/bin" "$HOME/.config" "$HOME/.mozilla" "$HOME/.local/share/blocker" -name 'blocker-browser-host' \
       -o -name 'io.github.blockerd.browser.json' -o -name 'browser-extension*' 2>/dev/null)
[ -z "$left" ] || fail "browser-extension.sh uninstall left: $left"
ok "make uninstall's browser-extension.sh removes the host link, its manifests and the extension"
echo "itest-browser: pass"
