# blocker — see README.md.
#   make install    build (release) and install for the current user, then start it
#   make check      install test dependencies, build, run every test
#   make bench      benchmarks, printed as a table
#   make deb        the Debian package for this machine's release, build/deb/blocker_VERSION_amd64.deb
#   make deb13      the Debian 13 package, built in a Debian 13 chroot, build/deb13/ (root)
#   make pot        po/blocker.pot from the sources (then msgmerge each po/LL.po)
#   make gnome-extension-zip  the GNOME 45–49 extension for extensions.gnome.org,
#                   build/blocker@blockerd.github.io.shell-extension.zip
PREFIX   ?= $(HOME)/.local
BINDIR   ?= $(PREFIX)/bin
DOCDIR   ?= $(PREFIX)/share/doc/blocker
APPDIR   ?= $(PREFIX)/share/applications
UNITDIR  ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/systemd/user
CONFDIR  ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/blocker
MANDIR   ?= $(PREFIX)/share/man
# The translations: LOCALEDIR/LL/LC_MESSAGES/blocker.mo, found by the programs beside their bin/.
LOCALEDIR ?= $(PREFIX)/share/locale
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SWIFT    ?= swift
PROGRAMS := blockerd blockerctl blocker-overlay
UNITS    := blockerd.service blockerd-watchdog.service blockerd-watchdog.timer blocker-overlay.service
# Desktop entries (data/): "Log exercise" opens blocker-overlay --earn.
DESKTOP_ENTRIES := io.github.blockerd.LogExercise.desktop
# GNOME Shell extension (extensions/gnome-shell/): installed and enabled for GNOME users.
GNOME_EXTENSION := scripts/gnome-extension.sh

.PHONY: all build release check deps install install-files uninstall bench clean deb deb13 gnome-extension-zip pot

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
	scripts/i18n.sh mo $(LOCALEDIR)
	install -d -m 755 $(MANDIR)/man1 $(MANDIR)/man5 $(MANDIR)/man8 $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR)
	"$(BINSRC)/blockerctl" man >$(MANDIR)/man1/blockerctl.1.tmp && mv $(MANDIR)/man1/blockerctl.1.tmp $(MANDIR)/man1/blockerctl.1
	install -m 644 docs/man/blocker-overlay.1 $(MANDIR)/man1/
	install -m 644 docs/man/blocker.toml.5 $(MANDIR)/man5/
	install -m 644 docs/man/blockerd.8 $(MANDIR)/man8/
	"$(BINSRC)/blockerctl" completions bash >$(BASHCOMPDIR)/blockerctl.tmp && mv $(BASHCOMPDIR)/blockerctl.tmp $(BASHCOMPDIR)/blockerctl
	"$(BINSRC)/blockerctl" completions zsh >$(ZSHCOMPDIR)/_blockerctl.tmp && mv $(ZSHCOMPDIR)/_blockerctl.tmp $(ZSHCOMPDIR)/_blockerctl
	"$(BINSRC)/blockerctl" completions fish >$(FISHCOMPDIR)/blockerctl.fish.tmp && mv $(FISHCOMPDIR)/blockerctl.fish.tmp $(FISHCOMPDIR)/blockerctl.fish
	@if [ -e $(CONFDIR)/blocker.toml ]; then \
	    echo "keeping your $(CONFDIR)/blocker.toml"; \
	else install -D -m 644 config/blocker.toml $(CONFDIR)/blocker.toml; \
	    echo "installed the default config: $(CONFDIR)/blocker.toml"; fi
	@scripts/install-kwin-script.sh install
	@scripts/browser-extension.sh install $(abspath $(BINDIR))
	@scripts/enable-units.sh $(UNITS)
	@$(GNOME_EXTENSION) install

uninstall:
	-@systemctl --user disable --now blockerd-watchdog.timer blockerd.service blocker-overlay.service 2>/dev/null
	for p in $(PROGRAMS); do rm -f $(BINDIR)/$$p; done
	for u in $(UNITS); do rm -f $(UNITDIR)/$$u; done
	for d in $(DESKTOP_ENTRIES); do rm -f "$(APPDIR)/$$d"; done
	rm -rf $(DOCDIR)
	rm -f $(MANDIR)/man1/blockerctl.1 $(MANDIR)/man1/blocker-overlay.1 $(MANDIR)/man5/blocker.toml.5 $(MANDIR)/man8/blockerd.8
	rm -f $(BASHCOMPDIR)/blockerctl $(ZSHCOMPDIR)/_blockerctl $(FISHCOMPDIR)/blockerctl.fish
	for po in po/*.po; do rm -f $(LOCALEDIR)/$$(basename $$po .po)/LC_MESSAGES/blocker.mo; done
	-@$(GNOME_EXTENSION) uninstall
	-@scripts/install-kwin-script.sh uninstall
	-@scripts/browser-extension.sh uninstall $(abspath $(BINDIR))
	-@systemctl --user daemon-reload 2>/dev/null
	@echo "kept your config ($(CONFDIR)) and ledger (~/.local/state/blocker); remove them by hand if you want"

# Every test: unit tests, then the integration scripts that start real servers.
check:
	scripts/deps.sh check
	scripts/check.sh

bench:
	scripts/deps.sh bench
	scripts/bench.sh

# The Debian package (debian/): a release build, into $(DEB_OUTDIR). Needs the
# Build-Depends (scripts/deps.sh build) and swift on PATH (or SWIFT=).
DEB_OUTDIR ?= build/deb
deb: deps
	dpkg-checkbuilddeps
	mkdir -p $(DEB_OUTDIR)
	debian/rules clean
	debian/rules binary SWIFT="$(SWIFT)" DEB_OUTDIR="$(abspath $(DEB_OUTDIR))"
	@echo "built $(DEB_OUTDIR)/blocker_$$(dpkg-parsechangelog -S Version)_amd64.deb"

# The template of the translations, from every marked text (scripts/i18n.sh pot);
# each po/LL.po then takes the new texts with msgmerge.
pot:
	scripts/i18n.sh pot
	for po in po/*.po; do msgmerge --quiet --update --backup=none --no-wrap $$po po/blocker.pot || exit 1; done

# The upload for extensions.gnome.org (GNOME 45–49), checked by scripts/lib/gnome-extension-lint.py.
gnome-extension-zip:
	@$(GNOME_EXTENSION) pack build

# The Debian 13 package from a Debian 12 machine: `make deb` inside the Debian
# 13 chroot that scripts/trixie.sh builds (debootstrap; kept in
# /var/cache/blocker-tests), with this machine's Swift toolchain bound in.
deb13:
	scripts/trixie.sh deb $(abspath build/deb13)

clean:
	rm -rf .build build/deb build/deb13
