import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerBus

/// A real dbus-daemon, the real blockerd binary with the command probe, and
/// both the Swift client and busctl talking to it. Serialized: each test runs
/// two daemons, and the signal timings need the two cores to themselves.
@Suite(.serialized) struct BlockerdBusTests {
    static let invalidArgument = BusErrorName.invalidArgument.rawValue

    /// The error a call ended in, or a recorded issue when it succeeded.
    func refusal<T>(_ call: () throws(BusFailure) -> T) -> BusFailure? {
        do {
            let value = try call()
            Issue.record("expected a refusal, got \(value)")
            return nil
        } catch {
            return error
        }
    }

    /// The name and message of the refusal `call` must end in; any other outcome
    /// (a value, `.transport`, `.notRunning`, …) fails the test here.
    func refused<T>(_ call: () throws(BusFailure) -> T,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> (name: String, message: String) {
        let failure = refusal(call)
        return try #require(failure?.refusal, "expected a refusal, got \(String(describing: failure))",
                            sourceLocation: sourceLocation)
    }

    // MARK: the contract

    @Test func introspectionShowsTheContractWithParameterNames() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let bus = session.bus
        let xml = try run(["/usr/bin/busctl", "--address=\(bus.address)", "introspect", "--xml-interface",
                           BusNames.service, BusNames.objectPath])
        #expect(xml.status == 0, "\(xml.stderr)")
        for line in [
            #"<interface name="io.github.blockerd.Blocker1">"#,
            #"<method name="Earn">"#, #"<arg type="s" name="exercise" direction="in"/>"#,
            #"<arg type="u" name="reps" direction="in"/>"#, #"<arg type="x" name="earned_ms" direction="out"/>"#,
            #"<arg type="x" name="balance_ms" direction="out"/>"#,
            #"<method name="BlockFor">"#, #"<arg type="t" name="seconds" direction="in"/>"#,
            #"<arg type="x" name="until_ms" direction="out"/>"#,
            #"<method name="Unblock">"#, #"<arg type="s" name="target" direction="in"/>"#,
            #"<method name="History">"#, #"<arg type="u" name="days" direction="in"/>"#,
            #"<arg type="a(ssxx)" name="rows" direction="out"/>"#,
            #"<method name="Status">"#, #"<arg type="a{sv}" name="status" direction="out"/>"#,
            #"<method name="Reload">"#,
            #"<signal name="ShieldChanged">"#, #"<arg type="a{sv}" name="shield"/>"#,
            #"<signal name="BalanceChanged">"#, #"<signal name="Warning">"#, #"<arg type="x" name="remaining_ms"/>"#,
        ] {
            #expect(xml.stdout.contains(line), "missing \(line)")
        }
        // The table form too, as people will type it.
        let table = try run(["/usr/bin/busctl", "--address=\(bus.address)", "introspect", BusNames.service,
                             BusNames.objectPath, BusNames.interface])
        #expect(table.stdout.contains(".Earn") && table.stdout.contains("su") && table.stdout.contains("a(ssxx)"))
    }

    @Test func statusDescribesWhatIsInFront() throws {
        let session = try startBlockerd(front: "notes")
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        let status = try client.status()
        #expect(status.balanceMs == 0 && !status.metered && !status.locked)
        #expect(status.foreground == .init(app: "notes", title: "t", pid: 1, groups: ["tools"]))
        #expect(status.shield == .down(balanceMs: 0))
        #expect(status.exercises == [Exercise(name: "pushups", perRep: 30_000)])
        #expect(status.todayUsedMs == 0 && status.todayEarnedMs == 0)
        #expect(status.probeName == "command" && status.probeOK && status.probeError == nil)

        daemon.setFront("discord", locked: false)
        try pump(client, seconds: 3) { (try? client.status().shield.active) == true }
        let covered = try client.status()
        #expect(covered.metered && covered.foreground?.groups == ["social"])
        #expect(covered.shield == .init(active: true, reason: .balance, app: "discord", balanceMs: 0))

        daemon.setFront("notes", locked: true)
        try pump(client, seconds: 3) { (try? client.status().locked) == true }
        #expect(try client.status().locked)

        try daemon.scratch.write("front.json", "{broken")
        try pump(client, seconds: 3) { (try? client.status().probeOK) == false }
        let failing = try client.status()
        #expect(!failing.probeOK && failing.probeError?.isEmpty == false)
        // A failing probe's last answer is no foreground (the window may be gone).
        #expect(failing.foreground == nil)

        let raw = try busctlCall(bus, "Status")
        #expect(raw.status == 0)
        #expect(raw.stdout.hasPrefix("a{sv} 8 "), "no foreground while the probe fails: \(raw.stdout)")
        #expect(raw.stdout.contains(#""balance_ms" x 0"#) && raw.stdout.contains(#""probe" a{sv} "#))
    }

    /// Issue 20, row 10: the client timed out after blockerd had committed
    /// the earning (blockerd was stopped for a moment), and retried: credited
    /// once; the first earning answers the retry, also after a restart.
    @Test func earnOnceRetriedAfterATimeoutIsCreditedOnce() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        // A client that waits 1 s, as the overlay waits 3 s, and stays connected.
        let impatient = try bus.client()
        impatient.callTimeoutMicroseconds = 1_000_000
        kill(daemon.pid, SIGSTOP)
        do {
            let answer = try impatient.earnOnce(requestID: "retry-1", exercise: "pushups", reps: 4)
            Issue.record("a stopped blockerd answered: \(answer)")
        } catch {
            guard case .transport = error else { Issue.record("not a timeout: \(error)"); return }
        }
        kill(daemon.pid, SIGCONT)
        try waitUntil("the earning the client gave up on to be credited", timeout: 5) { try balance(client) == 120_000 }
        #expect(try impatient.earnOnce(requestID: "retry-1", exercise: "pushups", reps: 4) == (120_000, 120_000))
        let retried = try busctlCall(bus, "EarnOnce", "ssu", "retry-1", "pushups", "4")
        #expect(retried.status == 0 && retried.stdout == "xx 120000 120000\n", "\(retried)")
        #expect(try client.earnOnce(requestID: "retry-2", exercise: "pushups", reps: 1) == (30_000, 150_000))
        #expect(try client.earnOnce(requestID: "retry-2", exercise: "pushups", reps: 1) == (30_000, 150_000))
        #expect(try balance(client) == 150_000)

        kill(daemon.pid, SIGTERM)
        _ = try daemon.waitForExit()
        let again = try Blockerd(on: bus)
        defer { again.stop() }
        try again.launch(stateDirectory: daemon.stateDirectory)
        try again.waitUntilAnswering(client)
        #expect(try client.earnOnce(requestID: "retry-1", exercise: "pushups", reps: 4) == (120_000, 150_000))
        #expect(try balance(client) == 150_000)
        let empty = try busctlCall(bus, "EarnOnce", "ssu", "", "pushups", "4")
        #expect(empty.status != 0 && empty.stderr.contains("a request id is 1 to 128 bytes"), "\(empty)")
    }

    @Test func earnCreditsAndIsOnDiskBeforeTheReply() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        #expect(try client.earn(exercise: "pushups", reps: 4) == (120_000, 120_000))
        #expect(try client.earn(exercise: "PushUps", reps: 1) == (30_000, 150_000))     // case-insensitive
        #expect(try client.earn(exercise: "", reps: 2) == (60_000, 210_000))            // the only one configured
        let raw = try busctlCall(bus, "Earn", "su", "pushups", "1000")
        #expect(raw.status == 0 && raw.stdout == "xx 30000000 30210000\n", "\(raw)")
        let status = try client.status()
        #expect(status.balanceMs == 30_210_000 && status.todayEarnedMs == 30_210_000)

        // SIGKILL straight after a reply: a restarted daemon has the earning.
        #expect(try client.earn(exercise: "pushups", reps: 1).balanceMs == 30_240_000)
        kill(daemon.pid, SIGKILL)
        _ = try daemon.waitForExit()
        let again = try Blockerd(on: bus)
        defer { again.stop() }
        try again.launch(stateDirectory: daemon.stateDirectory)
        try again.waitUntilAnswering(client)
        #expect(try balance(client) == 30_240_000)
    }

    @Test func gapsNameACleanStopAndAKill() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        #expect(try client.gaps(days: 1).isEmpty)
        kill(daemon.pid, SIGTERM)                          // a clean stop records itself
        #expect(try daemon.waitForExit() == 0)
        let second = try Blockerd(on: bus)
        defer { second.stop() }
        try second.launch(stateDirectory: daemon.stateDirectory)
        try second.waitUntilAnswering(client)
        kill(second.pid, SIGKILL)                          // no record: the gap starts at its last tick
        _ = try second.waitForExit()
        let third = try Blockerd(on: bus)
        defer { third.stop() }
        try third.launch(stateDirectory: daemon.stateDirectory)
        try third.waitUntilAnswering(client)
        let gaps = try client.gaps(days: 1)
        #expect(gaps.map(\.reason) == ["stopped", "unknown: killed with SIGKILL, crashed or power lost; from the last tick it noted"])
        #expect(gaps.allSatisfy { $0.to > $0.from })
        #expect(second.log.contains("blockerd was off ") && second.log.contains("stopped"), "\(second.log)")
        #expect(third.log.contains("unknown: killed with SIGKILL"), "\(third.log)")
        let refused = refusal { () throws(BusFailure) in try client.gaps(days: 0) }
        #expect(refused == .refused(name: Self.invalidArgument, message: "gaps cover 1 to 366 days (got 0)"))
    }

    @Test func badEarnsAreRefusedWithTheirErrorAndCreditNothing() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        _ = try client.earn(exercise: "pushups", reps: 2)
        let before = try balance(client)

        for reps: UInt32 in [0, 1001, 1_000_000_000] {
            let failure = refusal { () throws(BusFailure) in try client.earn(exercise: "pushups", reps: reps) }
            #expect(failure == .refused(name: Self.invalidArgument,
                                        message: "reps must be a whole number from 1 to 1000 (got \(reps)); nothing was credited"))
        }
        let unknown = refusal { () throws(BusFailure) in try client.earn(exercise: "burpees", reps: 3) }
        #expect(unknown == .refused(name: BusErrorName.unknownExercise.rawValue,
                                    message: "unknown exercise \"burpees\"; configured: pushups (add it under [earn] in \(daemon.configPath))"))

        // Through busctl: a negative count does not even fit the signature.
        let negative = try busctlCall(bus, "Earn", "si", "pushups", "-5")
        #expect(negative.status != 0 && negative.stderr.contains("Invalid arguments 'si'") && negative.stderr.contains("expecting 'su'"))
        let zero = try busctlCall(bus, "Earn", "su", "pushups", "0")
        #expect(zero.status != 0 && zero.stderr.contains("reps must be a whole number from 1 to 1000 (got 0)"))
        let tooMany = try busctlCall(bus, "Earn", "su", "pushups", "1001")
        #expect(tooMany.status != 0 && tooMany.stderr.contains("(got 1001)"))
        let nameless = try busctlCall(bus, "Earn", "su", "situps", "3")
        #expect(nameless.status != 0 && nameless.stderr.contains("unknown exercise \"situps\"; configured: pushups"))

        #expect(try balance(client) == before)
        #expect(try client.status().todayEarnedMs == before)
    }

    @Test func anEarningBeyondTheCapIsRefusedAndCreditsNothing() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (daemon, client) = (session.daemon, session.client)
        try daemon.writeConfig(testConfig(directory: daemon.scratch.path, earn: "pushups = 0.5\nmax-per-day = \"2m\""))
        try client.reload()
        _ = try client.earn(exercise: "pushups", reps: 3)
        let (name, message) = try refused { () throws(BusFailure) in try client.earn(exercise: "pushups", reps: 2) }
        #expect(name == BusErrorName.refused.rawValue)
        #expect(message.hasPrefix("over the daily cap: [earn] max-per-day is 2m 00s; only 30s more may be earned today"), "\(message)")
        #expect(try balance(client) == 90_000)
        _ = try client.earn(exercise: "pushups", reps: 1)
        #expect(try balance(client) == 120_000)
    }

    @Test func anEmptyExerciseNeedsAChoiceWhenSeveralAreConfigured() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (daemon, client) = (session.daemon, session.client)
        try daemon.writeConfig(testConfig(directory: daemon.scratch.path, earn: "pushups = 0.5\nsquats = 1"))
        try client.reload()
        let failure = refusal { () throws(BusFailure) in try client.earn(exercise: "", reps: 1) }
        #expect(failure == .refused(name: BusErrorName.unknownExercise.rawValue,
                                    message: "say which exercise: one of pushups, squats"))
        #expect(try balance(client) == 0)
        #expect(try client.earn(exercise: "squats", reps: 1) == (60_000, 60_000))

        try daemon.writeConfig(testConfig(directory: daemon.scratch.path, earn: ""))
        try client.reload()
        let none = try refused { () throws(BusFailure) in try client.earn(exercise: "", reps: 1) }
        #expect(none.name == BusErrorName.unknownExercise.rawValue)
        #expect(none.message.hasPrefix("no exercises are configured; add one under [earn] in \(daemon.configPath)"), "\(none.message)")
    }

    @Test func aBadReloadIsAConfigErrorAndTheOldConfigStays() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        let good = testConfig(directory: daemon.scratch.path)
        try daemon.writeConfig(good + "\nbogus-key = 1\n")
        let (name, message) = try refused { () throws(BusFailure) in try client.reload() }
        #expect(name == BusErrorName.configError.rawValue)
        #expect(message.hasPrefix(daemon.configPath + ":"), "\(message)")             // file:line:column
        #expect(message.contains("bogus-key") && message.contains("previous configuration stays"))
        #expect(try client.earn(exercise: "pushups", reps: 1).earnedMs == 30_000)    // still the old config

        let raw = try busctlCall(bus, "Reload")
        #expect(raw.status != 0 && raw.stderr.contains("bogus-key"))
        try daemon.writeConfig(good)
        #expect(try busctlCall(bus, "Reload").status == 0)
    }

    @Test func blockingATargetCoversItAndUnblockingLiftsOnlyThatBlock() throws {
        let session = try startBlockerd(front: "discord")
        defer { session.stop() }
        let (bus, client) = (session.bus, session.client)
        _ = try client.earn(exercise: "pushups", reps: 20)                           // 10 minutes: no balance shield
        var changes: [ShieldState] = []
        let subscription = try client.onShieldChanged { changes.append($0) }
        defer { subscription.cancel() }

        let start = WallInstant(ms: Int64(Date().timeIntervalSince1970 * 1000))
        let groupUntil = try client.blockFor(target: "Social", seconds: 600)
        #expect(abs((groupUntil - (start + 600_000)).ms) < 5_000)
        try pump(client, seconds: 3) { changes.contains { $0.active } }
        // The group whose block covers the app comes with the signal and with Status.
        #expect(changes.last == ShieldState(active: true, reason: .timedBlock, app: "discord", group: "social",
                                            until: groupUntil, balanceMs: changes.last?.balanceMs ?? -1))
        let shield = try client.status().shield
        #expect(shield == .init(active: true, reason: .timedBlock, app: "discord", group: "social", until: groupUntil,
                                balanceMs: shield.balanceMs))

        // A second, longer block on the app itself: clearing the group's leaves it.
        let appUntil = try client.blockFor(target: "discord", seconds: 604_800)
        #expect(appUntil > groupUntil)
        try client.unblock(target: "social")
        #expect(try client.status().shield.active)
        try pump(client, seconds: 0.5)
        #expect(changes.last?.active == true)

        let raw = try busctlCall(bus, "Unblock", "s", "DISCORD")
        #expect(raw.status == 0, "\(raw)")
        try pump(client, seconds: 3) { changes.last?.active == false }
        #expect(changes.last == .down(balanceMs: changes.last?.balanceMs ?? -1, lastApp: "discord"))
        #expect(try client.status().shield.active == false)

        let again = try refused { () throws(BusFailure) in try client.unblock(target: "social") }
        #expect(again.name == Self.invalidArgument)
        #expect(again.message.hasPrefix("no timed block on social;"), "\(again.message)")
    }

    @Test func badBlocksAreRefusedAndBlockNothing() throws {
        let session = try startBlockerd(front: "notes")
        defer { session.stop() }
        let (bus, client) = (session.bus, session.client)
        _ = try client.earn(exercise: "pushups", reps: 2)
        let before = try balance(client)
        let range = "a block lasts from 1 minute to 7 days (60 to 604800 seconds)"
        let short = refusal { () throws(BusFailure) in try client.blockFor(target: "social", seconds: 59) }
        #expect(short == .refused(name: Self.invalidArgument, message: "\(range), not 59s; nothing was blocked"))
        let long = refusal { () throws(BusFailure) in try client.blockFor(target: "social", seconds: 8 * 86_400) }
        #expect(long == .refused(name: Self.invalidArgument, message: "\(range), not 8d 00h; nothing was blocked"))
        let unknown = refusal { () throws(BusFailure) in try client.blockFor(target: "youtube", seconds: 600) }
        #expect(unknown == .refused(name: BusErrorName.unknownTarget.rawValue,
                                    message: "\"youtube\" is neither a group nor an app listed in one; groups: social, tools"))
        let unknownUnblock = try refused { () throws(BusFailure) in try client.unblock(target: "youtube") }
        #expect(unknownUnblock.name == BusErrorName.unknownTarget.rawValue)
        let nothing = try refused { () throws(BusFailure) in try client.unblock(target: "notes") }
        #expect(nothing.name == Self.invalidArgument)
        #expect(nothing.message.hasPrefix("no timed block on notes;"), "\(nothing.message)")

        for (signature, target, seconds) in [("st", "social", "59"), ("st", "social", "691200"), ("st", "nope", "600")] {
            let raw = try busctlCall(bus, "BlockFor", signature, target, seconds)
            #expect(raw.status != 0, "\(target) \(seconds)")
        }
        let status = try client.status()
        #expect(status.balanceMs == before && !status.shield.active)
        // The bounds themselves are fine.
        #expect(try client.blockFor(target: "tools", seconds: 60) > WallInstant(ms: 0))
        #expect(try client.blockFor(target: "notes", seconds: 604_800) > 0)
        try pump(client, seconds: 2) { (try? client.status().shield.active) == true }
        #expect(try client.status().shield.reason == .timedBlock)
    }

    @Test func historyHasADayTotalsRowAndGroupRows() throws {
        let session = try startBlockerd(front: "notes")
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        _ = try client.earn(exercise: "pushups", reps: 2)
        daemon.setFront("discord")
        try pump(client, seconds: 5) { ((try? client.status().todayUsedMs) ?? 0) >= 1_000 }
        daemon.setFront("notes")
        try pump(client, seconds: 0.6)
        let status = try client.status()

        let today = try client.history(days: 1)
        let day = try #require(today.first?.day)
        #expect(today.first == HistoryRow(day: day, group: "", usedMs: status.todayUsedMs, earnedMs: 60_000))
        #expect(status.todayUsedMs == 60_000 - status.balanceMs)
        let social = try #require(today.first { $0.group == "social" })
        #expect(social.usedMs == status.todayUsedMs && social.earnedMs == 0 && social.day == day)
        #expect(today.allSatisfy { $0.day == day })

        let week = try client.history(days: 7)
        let totals = week.filter { $0.group.isEmpty }
        #expect(totals.count == 7 && totals.last?.day == day)                      // every day, oldest first
        #expect(totals.map(\.day) == totals.map(\.day).sorted())
        #expect(totals.dropLast().allSatisfy { $0.usedMs == 0 && $0.earnedMs == 0 })
        #expect(try client.history(days: 366).filter { $0.group.isEmpty }.count == 366)

        for days: UInt32 in [0, 367] {
            let failure = refusal { () throws(BusFailure) in try client.history(days: days) }
            #expect(failure == .refused(name: Self.invalidArgument, message: "history covers 1 to 366 days (got \(days))"))
        }
        let raw = try busctlCall(bus, "History", "u", "1")
        #expect(raw.status == 0 && raw.stdout.hasPrefix("a(ssxx) ") && raw.stdout.contains(#""\#(day)" "" "#))
    }

    @Test func wrongSignaturesAreRejectedBySdBusAndTheDaemonCarriesOn() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, daemon, client) = (session.bus, session.daemon, session.client)
        let attempts: [(String, [String], String)] = [
            ("Status", ["s", "x"], "Invalid arguments 's'"),
            ("Earn", ["s", "pushups"], "expecting 'su'"),
            ("Earn", ["us", "3", "pushups"], "expecting 'su'"),
            ("BlockFor", ["su", "social", "600"], "expecting 'st'"),
            ("Unblock", ["u", "5"], "expecting 's'"),
            ("History", ["i", "3"], "expecting 'u'"),
            ("Reload", ["b", "true"], "Invalid arguments 'b'"),
        ]
        for (member, arguments, message) in attempts {
            let argv = ["/usr/bin/busctl", "--address=\(bus.address)", "--", "call", BusNames.service,
                        BusNames.objectPath, BusNames.interface, member] + arguments
            let raw = try run(argv)
            #expect(raw.status != 0 && raw.stderr.contains(message), "\(member) \(arguments): \(raw.stderr)")
        }
        let unknown = try busctlCall(bus, "Withdraw", "u", "5")
        #expect(unknown.status != 0 && unknown.stderr.contains("Withdraw"))
        #expect(daemon.process.isRunning)
        #expect(try balance(client) == 0)
        #expect(try client.earn(exercise: "pushups", reps: 1).balanceMs == 30_000)
    }

    @Test func aFullDiskIsAStorageErrorAndCreditsNothing() throws {
        let bus = try PrivateBus()
        let daemon = try Blockerd(on: bus, front: nil)
        defer { daemon.stop(); bus.stop() }
        // The state dir is a 512 KiB tmpfs in blockerd's own mount namespace.
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try daemon.launch(wrapper: ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                                    #"mount -t tmpfs -o size=512k,mode=0700 tmpfs "$0" && exec "$@""#,
                                    daemon.stateDirectory])
        let client = try bus.client()
        try daemon.waitUntilAnswering(client)
        #expect(try client.earn(exercise: "pushups", reps: 2).balanceMs == 60_000)

        // Fill it, seen through the daemon's root.
        let filler = "/proc/\(daemon.pid)/root\(daemon.stateDirectory)/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let block = [UInt8](repeating: 0x55, count: 4096)
        while write(fd, block, block.count) > 0 {}
        close(fd)

        let (name, message) = try refused { () throws(BusFailure) in try client.earn(exercise: "pushups", reps: 3) }
        #expect(name == BusErrorName.storageError.rawValue)
        #expect(message.hasPrefix("nothing was credited: ") && message.contains("free some disk space"), "\(message)")
        #expect(try balance(client) == 60_000)

        unlink(filler)
        #expect(try client.earn(exercise: "pushups", reps: 3).balanceMs == 150_000)
    }
}

extension BusFailure {
    /// The error name and message of a `.refused`; nil for every other failure.
    var refusal: (name: String, message: String)? {
        if case let .refused(name, message) = self { return (name, message) }
        return nil
    }
}
