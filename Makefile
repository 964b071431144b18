# blocker — see README.md.
#   make install    build (release) and install for the current user, then start it
#   make check      install test dependencies, build, run every test
#   make bench      benchmarks, printed as a table
PREFIX   ?= $(HOME)/.local
BINDIR   ?= $(PREFIX)/bin
DOCDIR   ?= $(PREFIX)/share/doc/blocker
APPDIR   ?= $(PREFIX)/share/applications
UNITDIR  ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/systemd/user
CONFDIR  ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/blocker
SWIFT    ?= swift
PROGRAMS := blockerd blockerctl blocker-overlay
UNITS    := blockerd.service blockerd-watchdog.service blockerd-watchdog.timer blocker-overlay.service
# Desktop entries (data/): "Log exercise" opens blocker-overlay --earn.
DESKTOP_ENTRIES := io.github.blockerd.LogExercise.desktop
# GNOME Shell extension (extensions/gnome-shell/): installed and enabled for GNOME users.
GNOME_EXTENSION := scripts/gnome-extension.sh

.PHONY: all build release check deps install install-files uninstall bench clean

all: build

deps:
	scripts/deps.sh build

build: deps
	$(SWIFT) build -Xswiftc -warnings-as-errors

release: deps
	for p in $(PROGRAMS); do $(SWIFT) build -c release --static-swift-stdlib --product $$p || exit 1; done

install: release
	$(MAKE) install-files BINSRC="$$($(SWIFT) build -c release --show-bin-path)"

# Installs already-built programs from BINSRC (the tests install debug builds this way).
install-files:
	@test -n "$(BINSRC)" || { echo "install-files: set BINSRC to the directory with the built programs" >&2; exit 2; }
	install -d -m 755 $(BINDIR) $(UNITDIR) $(DOCDIR)
	for p in $(PROGRAMS); do install -m 755 "$(BINSRC)/$$p" $(BINDIR)/; done
	scripts/render-units.sh $(BINDIR) $(DOCDIR) $(UNITDIR) $(UNITS)
	scripts/render-desktop.sh "$(BINDIR)" "$(APPDIR)" $(DESKTOP_ENTRIES)
	install -m 644 README.md $(DOCDIR)/README.md
	@if [ -e $(CONFDIR)/blocker.toml ]; then \
	    echo "keeping your $(CONFDIR)/blocker.toml"; \
	else install -D -m 644 config/blocker.toml $(CONFDIR)/blocker.toml; \
	    echo "installed the default config: $(CONFDIR)/blocker.toml"; fi
	@scripts/install-kwin-script.sh install
	@scripts/enable-units.sh $(UNITS)
	@$(GNOME_EXTENSION) install

uninstall:
	-@systemctl --user disable --now blockerd-watchdog.timer blockerd.service blocker-overlay.service 2>/dev/null
	for p in $(PROGRAMS); do rm -f $(BINDIR)/$$p; done
	for u in $(UNITS); do rm -f $(UNITDIR)/$$u; done
	for d in $(DESKTOP_ENTRIES); do rm -f "$(APPDIR)/$$d"; done
	rm -rf $(DOCDIR)
	-@$(GNOME_EXTENSION) uninstall
	-@scripts/install-kwin-script.sh uninstall
	-@systemctl --user daemon-reload 2>/dev/null
	@echo "kept your config ($(CONFDIR)) and ledger (~/.local/state/blocker); remove them by hand if you want"

# Every test: unit tests, then the integration scripts that start real servers.
check:
	scripts/deps.sh check
	scripts/check.sh

bench:
	scripts/deps.sh bench
	scripts/bench.sh

clean:
	rm -rf .build
