#!/usr/bin/env bash
# After `make install`: reload the user manager and enable + start the units,
# or say clearly why that could not be done.
set -uo pipefail
if ! systemctl --user show-environment >/dev/null 2>&1; then
    cat >&2 <<'MSG'
make install: no systemd user manager is reachable from this shell, so nothing was started.
  Log in to a graphical session (or set XDG_RUNTIME_DIR=/run/user/$(id -u)) and run:
    systemctl --user daemon-reload
    systemctl --user enable --now blockerd.service blockerd-watchdog.timer blocker-overlay.service
MSG
    exit 0
fi
systemctl --user daemon-reload
systemctl --user enable --now blockerd.service blockerd-watchdog.timer blocker-overlay.service
env=$(systemctl --user show-environment)
if ! grep -qE '^(DISPLAY|WAYLAND_DISPLAY)=' <<<"$env"; then
    cat >&2 <<'MSG'
make install: the user manager has neither DISPLAY nor WAYLAND_DISPLAY, so blockerd cannot see windows.
  From your graphical session run:
    systemctl --user import-environment DISPLAY WAYLAND_DISPLAY XDG_CURRENT_DESKTOP SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE XDG_SESSION_ID
    systemctl --user restart blockerd
MSG
fi
systemctl --user --no-pager status blockerd.service | head -5 || true
