# shellcheck shell=bash
# Small fixtures shared by the benchmark and integration scripts.

# fx_session_bus DIR — starts a private dbus-daemon with its socket in DIR and
# prints "ADDRESS PID" (the caller stops PID).
fx_session_bus() {
    dbus-daemon --session --fork --print-address=1 --print-pid=1 --address="unix:path=$1/bus" | paste -sd' '
}

# fx_config FILE FRONT_JSON [PROBE] [POLL] — a blocker.toml whose command probe
# prints FRONT_JSON, [earn] pushups = 0.5 and a metered group "social"
# (discord). Callers append sections of their own with >>.
fx_config() {
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<TOML
[daemon]
probe = "${3:-command}"
poll-interval = "${4:-1s}"
probe-command = ["/bin/cat", "$2"]
[earn]
pushups = 0.5
[[group]]
name = "social"
apps = ["discord"]
TOML
}

# fx_front FILE [APP] — what the command probe reports: APP in front, or nothing.
fx_front() {
    if [ -n "${2:-}" ]; then echo "{\"app\":\"$2\",\"title\":\"chat\",\"pid\":1}" >"$1"; else echo null >"$1"; fi
}
