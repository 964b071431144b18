#!/usr/bin/env bash
# itest-media.sh — a shield pauses the covered app's media and mutes its
# sound, for real: a private session bus, a PulseAudio with a null sink of
# its own, two mpv players with the mpv-mpris plugin playing a tone made by
# sox (A: the app in front; B: another app), and blockerd with the command
# probe reporting mpv A (with its pid) in front.
#
#   1. shield up (balance 0 at start): A's PlaybackStatus is Paused and its
#      stream muted; B keeps playing, unmuted (never touched);
#   2. an earning lifts it: A plays again and is unmuted (media-resumed,
#      audio-unmuted in the log);
#   3. A paused by the user before the next shield: the shield does not
#      pause it, and the earning after it does not start it;
#   4. a lift that is no earning (a timed block ended): unmuted, not resumed;
#   5. [cover] pause-media = false, mute = false: nothing is touched;
#   6. measured, 10 rounds: shield-up → A paused and → A muted (blockerd's
#      own log stamps; median and max printed, not asserted).
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init media
started=$(fx_now_ms)
mpris=/usr/lib/mpv-mpris/mpris.so
fx_need mpv sox pulseaudio pactl busctl dbus-daemon python3
[ -f "$mpris" ] || fail "$mpris is missing (Debian package mpv-mpris)"

fx_start_bus
# PulseAudio as this user (root in CI: --system=false keeps it a per-user
# server), one null sink, its socket in our directory; nothing else loaded.
export HOME=$fx_dir PULSE_SERVER=unix:$fx_dir/pulse-native
pulseaudio --daemonize=no -n --system=false --exit-idle-time=-1 --disallow-exit --use-pid-file=false \
    --load=module-null-sink --load="module-native-protocol-unix socket=$fx_dir/pulse-native auth-anonymous=1" \
    >"$fx_dir/pulseaudio.log" 2>&1 &
fx_track $!
fx_wait 10 eval 'pactl info >/dev/null 2>&1' || fail "PulseAudio did not start"

sox -n -r 44100 -c 2 "$fx_dir/tone.wav" synth 60 sine 440 vol 0.1 2>"$fx_dir/sox.log" || fail "sox made no tone"
start_mpv() { # LOG — mpv playing the tone forever on the null sink, MPRIS on our bus; prints its pid
    mpv --no-config --load-scripts=no --script="$mpris" --no-video --ao=pulse --loop-file=inf --really-quiet \
        "$fx_dir/tone.wav" >"$fx_dir/$1" 2>&1 &
    echo $!
}
a_pid=$(start_mpv mpv-a.log)
fx_track "$a_pid"
b_pid=$(start_mpv mpv-b.log)
fx_track "$b_pid"

bus() { busctl --address="$DBUS_SESSION_BUS_ADDRESS" "$@"; }
# The MPRIS name of the player whose process is PID.
player_of() {
    local name
    for name in $(bus list --acquired --no-legend | awk '$1 ~ /^org\.mpris\.MediaPlayer2\./ {print $1}'); do
        [ "$(bus status "$name" 2>/dev/null | sed -n 's/^PID=//p')" = "$1" ] && { echo "$name"; return 0; }
    done
    return 1
}
fx_wait 15 eval 'player_of "$a_pid" >/dev/null && player_of "$b_pid" >/dev/null' || fail "the mpv players are not on the bus"
a_name=$(player_of "$a_pid") b_name=$(player_of "$b_pid")
status_of() { bus get-property "$1" /org/mpris/MediaPlayer2 org.mpris.MediaPlayer2.Player PlaybackStatus | awk '{print $2}' | tr -d '"'; }
is_status() { [ "$(status_of "$1")" = "$2" ]; }
mpris_call() { bus call "$1" /org/mpris/MediaPlayer2 org.mpris.MediaPlayer2.Player "$2"; }
# "yes"/"no": whether the stream of PID is muted ("none" when it has none).
muted_of() {
    LC_ALL=C pactl list sink-inputs | python3 -c '
import sys
pid, mute, found = sys.argv[1], None, "none"
for line in sys.stdin:
    line = line.strip()
    if line.startswith("Sink Input #"): mute = None
    elif line.startswith("Mute:"): mute = line.split()[1]
    elif line == "application.process.id = \"%s\"" % pid and mute: found = mute
print(found)' "$1"
}
is_muted() { [ "$(muted_of "$1")" = "$2" ]; }
fx_wait 10 eval 'is_status "$a_name" Playing && is_status "$b_name" Playing' || fail "the players are not playing"
fx_wait 10 eval 'is_muted "$a_pid" no && is_muted "$b_pid" no' || fail "the players have no unmuted streams on the null sink"
fx_note "mpv A ($a_name, pid $a_pid) and B ($b_name, pid $b_pid) playing on the null sink"

# blockerd: mpv A in front (command probe, with its pid); pushups earn 30 s a rep.
echo "{\"app\":\"mpv\",\"title\":\"tone\",\"pid\":$a_pid}" >"$fx_dir/front.json"
write_config() { # [COVER_LINE…]
    {
        echo '[daemon]'
        echo 'probe = "command"'
        echo 'poll-interval = "1s"'
        echo "probe-command = [\"/bin/cat\", \"$fx_dir/front.json\"]"
        echo '[earn]'
        echo 'pushups = 0.5'
        echo '[[group]]'
        echo 'name = "player"'
        echo 'apps = ["mpv"]'
        if [ $# -gt 0 ]; then echo '[cover]'; printf '%s\n' "$@"; fi
    } >"$fx_dir/blocker.toml"
}
write_config
oe_start_blockerd command

# 1. Shield up at start: A paused and muted, B untouched.
fx_wait 5 oe_shield_active || fail "no shield with the balance at 0 and mpv in front"
fx_wait 5 is_status "$a_name" Paused || fail "mpv A was not paused under the shield: $(status_of "$a_name")"
fx_wait 5 is_muted "$a_pid" yes || fail "mpv A's stream was not muted under the shield: $(muted_of "$a_pid")"
sleep 0.5
is_status "$b_name" Playing || fail "mpv B (another app) was touched: $(status_of "$b_name")"
is_muted "$b_pid" no || fail "mpv B's stream (another app) was muted"
fx_wait 2 grep -q "event=media-paused app=mpv player=$a_name\$" "$fx_dir/blockerd.log" \
    || fail "no media-paused event for $a_name in blockerd's log"
grep -q "event=audio-muted app=mpv stream=[0-9]* pid=$a_pid\$" "$fx_dir/blockerd.log" || fail "no audio-muted event for pid $a_pid"
[ "$(oe_count blockerd.log "event=media-paused")" -eq 1 ] || fail "blockerd paused more than mpv A"
[ "$(oe_count blockerd.log "event=audio-muted")" -eq 1 ] || fail "blockerd muted more than mpv A's stream"
fx_note "1. shield up: A Paused and muted; B Playing, unmuted; media-paused and audio-muted logged"

# 2. An earning lifts it: A resumed and unmuted.
oe_ctl earn 1 pushups >/dev/null || fail "blockerctl earn failed"
fx_wait 5 is_status "$a_name" Playing || fail "mpv A was not resumed after the earning: $(status_of "$a_name")"
fx_wait 5 is_muted "$a_pid" no || fail "mpv A's stream stayed muted after the shield lifted"
fx_wait 2 grep -q "event=media-resumed" "$fx_dir/blockerd.log" || fail "no media-resumed event"
grep -q "event=audio-unmuted" "$fx_dir/blockerd.log" || fail "no audio-unmuted event"
fx_note "2. earned: A Playing and unmuted again; media-resumed and audio-unmuted logged"

# 3. Paused by the user: not paused by blockerd, not resumed after the earning.
mpris_call "$a_name" Pause
fx_wait 3 is_status "$a_name" Paused || fail "mpv A did not pause when asked"
paused_events=$(oe_count blockerd.log "event=media-paused")
fx_wait 40 oe_shield_active || fail "the 30 s earned did not run out"
fx_wait 5 is_muted "$a_pid" yes || fail "mpv A's (paused) stream was not muted under the second shield"
sleep 1
[ "$(oe_count blockerd.log "event=media-paused")" -eq "$paused_events" ] || fail "blockerd paused a player that was not playing"
oe_ctl earn 1 pushups >/dev/null || fail "blockerctl earn failed"
fx_wait 5 is_muted "$a_pid" no || fail "mpv A's stream stayed muted after the second lift"
sleep 1
is_status "$a_name" Paused || fail "the earning started mpv A, which the user had paused: $(status_of "$a_name")"
fx_note "3. paused by the user: blockerd neither paused it nor started it after the earning (muted and unmuted all the same)"

# 4. A lift that is no earning: unmuted, not resumed.
mpris_call "$a_name" Play
fx_wait 3 is_status "$a_name" Playing || fail "mpv A did not play when asked"
oe_ctl block mpv --for 1m >/dev/null || fail "blockerctl block failed"
fx_wait 5 is_status "$a_name" Paused || fail "the timed block did not pause mpv A"
oe_ctl unblock mpv >/dev/null || fail "blockerctl unblock failed"
fx_wait 5 is_muted "$a_pid" no || fail "mpv A's stream stayed muted after unblock"
sleep 1
is_status "$a_name" Paused || fail "a lift that was no earning resumed mpv A"
fx_note "4. unblocked (no earning): unmuted, left paused"

# 6. Measured (before 5 changes the config): shield-up → paused, → muted; 10 rounds.
mpris_call "$a_name" Play
fx_wait 3 is_status "$a_name" Playing || fail "mpv A did not play when asked"
paused_ms=() muted_ms=()
for round in $(seq 10); do
    ups=$(oe_count blockerd.log "event=shield-up") pauses=$(oe_count blockerd.log "event=media-paused")
    mutes=$(oe_count blockerd.log "event=audio-muted")
    oe_ctl block mpv --for 1m >/dev/null || fail "blockerctl block failed"
    fx_wait 5 eval '[ "$(oe_count blockerd.log "event=media-paused")" -gt "$pauses" ] && [ "$(oe_count blockerd.log "event=audio-muted")" -gt "$mutes" ]' \
        || fail "round $round: no media-paused/audio-muted after the shield went up"
    is_status "$a_name" Paused || fail "round $round: blockerd logged the pause but mpv A is $(status_of "$a_name")"
    up=$(oe_stamp_of blockerd.log "event=shield-up" $((ups + 1)))
    paused_ms+=($(($(oe_stamp_of blockerd.log "event=media-paused" $((pauses + 1))) - up)))
    muted_ms+=($(($(oe_stamp_of blockerd.log "event=audio-muted" $((mutes + 1))) - up)))
    oe_ctl unblock mpv >/dev/null || fail "blockerctl unblock failed"
    fx_wait 5 is_muted "$a_pid" no || fail "round $round: still muted after unblock"
    mpris_call "$a_name" Play
    fx_wait 3 is_status "$a_name" Playing || fail "round $round: mpv A did not play when asked"
done
summary() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {printf "median %d ms, max %d ms", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR]}'; }
fx_note "6. shield-up → mpv paused: $(summary "${paused_ms[@]}") (10 rounds: ${paused_ms[*]})"
fx_note "6. shield-up → stream muted: $(summary "${muted_ms[@]}") (10 rounds: ${muted_ms[*]})"

# 5. Both off: nothing touched.
write_config 'pause-media = false' 'mute = false'
oe_ctl reload >/dev/null || fail "blockerctl reload failed"
oe_ctl block mpv --for 1m >/dev/null || fail "blockerctl block failed"
fx_wait 3 oe_shield_active || fail "the timed block raised no shield"
sleep 1.5
is_status "$a_name" Playing || fail "pause-media = false, yet mpv A is $(status_of "$a_name")"
is_muted "$a_pid" no || fail "mute = false, yet mpv A's stream is muted"
oe_ctl unblock mpv >/dev/null
fx_note "5. [cover] pause-media = false, mute = false: mpv A plays on, unmuted, under the shield"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s"
