// swift-tools-version:6.0
// blocker — earned screen time for the Linux desktop.
// Dependencies point down only: executables → BlockerDaemon/BlockerBus →
// BlockerProbes/BlockerStore/BlockerConfig → BlockerTimeZone → BlockerCore, and
// BlockerBus/BlockerProbes/BlockerDaemon → BlockerSystemd → libsystemd;
// BlockerJSON and BlockerSystem (Glibc only) sit beside them.
import PackageDescription

let package = Package(
    name: "blocker",
    products: [
        .library(name: "BlockerCore", targets: ["BlockerCore"]),
        .library(name: "BlockerConfig", targets: ["BlockerConfig"]),
        .library(name: "BlockerStore", targets: ["BlockerStore"]),
    ],
    targets: [
        // C interop: each touched only by the Swift target that wraps it.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CXCB", pkgConfig: "xcb",
                       providers: [.apt(["libxcb1-dev", "libxcb-res0-dev", "libxcb-screensaver0-dev"])]),
        .systemLibrary(name: "CGtk", pkgConfig: "gtk-layer-shell-0",
                       providers: [.apt(["libgtk-3-dev", "libgtk-layer-shell-dev"])]),
        // blockerctl report's PNG and SVG (libcairo2-dev comes with libgtk-3-dev).
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // Wayland clients (wlr-foreign-toplevel-management): listeners and
        // interfaces are C globals, set up here; wayland-scanner's output is committed.
        .target(name: "CWayland", exclude: ["protocols"],
                linkerSettings: [.linkedLibrary("wayland-client")]),
        // Linux calls Glibc does not import (prctl is variadic).
        .target(name: "CLinux"),
        // SD_BUS_VTABLE_* are macros: this builds vtables from plain structs.
        .target(name: "CBusShim", dependencies: ["CSystemd"]),
        .target(name: "CTOML",
                cxxSettings: [.define("TOML_HEADER_ONLY", to: "0"),
                              .define("TOML_SHARED_LIB", to: "1"),
                              .define("TOML_EXCEPTIONS", to: "1")],
                linkerSettings: [.linkedLibrary("tomlplusplus")]),
        // Linear-time regexes (RE2) for group titles; pure computation, no I/O.
        .target(name: "CRE2", linkerSettings: [.linkedLibrary("re2")]),

        // Time as types: a duration (Milliseconds) and an instant of one clock
        // (Instant<Monotonic|Boottime|Wall>), so units and clocks cannot mix.
        // Below both BlockerCore and BlockerSystem, which re-export it.
        .target(name: "BlockerTime"),
        // Translations (issue 26): tr/trn/N_ and the locale's conventions, behind
        // one installed catalog (gettext in BlockerSystem); no I/O of its own.
        .target(name: "BlockerText"),
        // Pure domain: no I/O. Its one C dependency is CRE2 (title regexes must
        // match in linear time; RE2 only computes).
        .target(name: "BlockerCore", dependencies: ["BlockerTime", "BlockerText", "CRE2"]),
        // The one JSON reader (strict, bounded) and writer (keys in order): probes and blockerctl.
        .target(name: "BlockerJSON"),
        // The system layer, in the style of swift-system: errno, clocks, files,
        // environment, sockets. Glibc only; BlockerCore stays pure without it.
        .target(name: "BlockerSystem", dependencies: ["BlockerTime", "BlockerText", "CLinux"]),
        // The system time zone (TZ, /etc/localtime, tzdata): blockerd, blockerctl and the overlay.
        .target(name: "BlockerTimeZone", dependencies: ["BlockerCore", "BlockerSystem"]),
        // Reads blocker.toml (toml++ through CTOML, its nodes straight into ConfigValue); re-exports BlockerTimeZone.
        .target(name: "BlockerConfig", dependencies: ["BlockerCore", "BlockerTimeZone", "BlockerSystem", "CTOML"]),
        // One balance on every machine (issue 25): a device's log records, the merge (pure); the folder's I/O.
        .target(name: "BlockerSync", dependencies: ["BlockerCore", "BlockerJSON", "BlockerSystem"]),
        // The SQLite ledger.
        .target(name: "BlockerStore", dependencies: ["BlockerCore", "BlockerSystem", "BlockerTime", "CSQLite"]),
        // Thin typed wrappers over libsystemd: sd-bus, sd-event, journald, sd_notify.
        // The only Swift that calls sd_bus_*/sd_event_*; no raw pointer leaves it.
        .target(name: "BlockerSystemd", dependencies: ["CSystemd", "CBusShim", "BlockerSystem"]),
        // Which window is in front: one file per backend.
        .target(name: "BlockerProbes", dependencies: ["BlockerCore", "BlockerJSON", "BlockerSystem", "BlockerSystemd", "CXCB", "CWayland"]),
        // D-Bus API: server object for blockerd, client proxy for blockerctl and the overlay.
        .target(name: "BlockerBus", dependencies: ["BlockerCore", "BlockerSystem", "BlockerSystemd"]),
        // The covered app's media: MPRIS players (sd-bus through BlockerSystemd) and PulseAudio streams (pactl).
        .target(name: "BlockerMedia", dependencies: ["BlockerCore", "BlockerSystem", "BlockerSystemd"]),
        // The loop: timers, signals, the probe's fd, wiring. A library so tests can run it in-process.
        .target(name: "BlockerDaemon",
                dependencies: ["BlockerCore", "BlockerConfig", "BlockerStore", "BlockerProbes", "BlockerBus",
                               "BlockerMedia", "BlockerSync", "BlockerSystem", "BlockerSystemd"]),
        .executableTarget(name: "blockerd", dependencies: ["BlockerDaemon", "BlockerProbes", "BlockerSystem"]),
        // blockerctl's commands, a library so tests can call them.
        .target(name: "BlockerCLI",
                dependencies: ["BlockerCore", "BlockerConfig", "BlockerJSON", "BlockerProbes", "BlockerBus", "BlockerSystem",
                               "CCairo", "BlockerStore"]),
        .executableTarget(name: "blockerctl", dependencies: ["BlockerCLI"]),
        // The full-screen cover over a blocked app (GTK 3, gtk-layer-shell on wlroots).
        .executableTarget(name: "blocker-overlay",
                          dependencies: ["BlockerCore", "BlockerTimeZone", "BlockerBus", "BlockerSystem", "CGtk"]),
        // Measurements for `make bench`.
        .executableTarget(name: "blocker-bench", dependencies: ["BlockerProbes", "BlockerCore", "BlockerBus", "BlockerSync",
                                                             "BlockerSystem"]),

        // What the test targets share: temporary directories, a private bus,
        // child processes, fixture configs, days and instants written as literals.
        .target(name: "TestSupport", dependencies: ["BlockerCore"], path: "Tests/TestSupport"),
        .testTarget(name: "BlockerCoreTests", dependencies: ["BlockerCore", "TestSupport"]),
        .testTarget(name: "BlockerJSONTests", dependencies: ["BlockerJSON"]),
        .testTarget(name: "BlockerSyncTests", dependencies: ["BlockerSync", "BlockerCore", "TestSupport"]),
        .testTarget(name: "BlockerSystemTests", dependencies: ["BlockerSystem", "TestSupport"]),
        .testTarget(name: "BlockerConfigTests", dependencies: ["BlockerConfig", "BlockerCore", "TestSupport"]),
        .testTarget(name: "BlockerStoreTests", dependencies: ["BlockerStore", "BlockerCore", "TestSupport"]),
        .testTarget(name: "BlockerSystemdTests", dependencies: ["BlockerSystemd", "TestSupport"]),
        .testTarget(name: "BlockerProbesTests", dependencies: ["BlockerProbes", "BlockerCore", "BlockerSystem", "BlockerSystemd", "TestSupport"]),
        .testTarget(name: "BlockerDaemonTests", dependencies: ["BlockerDaemon", "BlockerBus", "BlockerCore", "BlockerStore", "BlockerSystem",
                                                              "BlockerSystemd", "TestSupport"]),
        .testTarget(name: "BlockerBusTests", dependencies: ["BlockerBus", "BlockerCore", "BlockerSystem", "BlockerSystemd", "TestSupport"]),
        .testTarget(name: "BlockerCLITests", dependencies: ["BlockerCLI", "BlockerBus", "BlockerCore", "BlockerJSON", "BlockerStore",
                                                           "BlockerProbes", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
