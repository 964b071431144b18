# blocker — see README.md.
PREFIX ?= $(HOME)/.local
SWIFT  ?= swift
SWIFTFLAGS ?= -Xswiftc -warnings-as-errors

.PHONY: all build check test deps install uninstall bench clean

all: build

deps:
	scripts/deps.sh build

build: deps
	$(SWIFT) build $(SWIFTFLAGS)

# Every test: unit tests, then the integration scripts that start real servers.
check:
	scripts/deps.sh check
	scripts/check.sh

clean:
	rm -rf .build
