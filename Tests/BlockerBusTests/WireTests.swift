import BlockerSystemd
import BlockerSystem
import BlockerCore
import Glibc
import Testing
@testable import BlockerBus

/// The pure parts of the API: the Status dictionary, the BalanceChanged
/// throttle, and how failures read on the client side.
@Suite struct WireTests {
    let full = StatusReport(
        balanceMs: 754_000, metered: true, locked: false,
        foreground: .init(app: "firefox", title: "News", pid: 42, groups: ["social", "video"]),
        shield: .init(active: true, reason: .timedBlock, app: "firefox", group: "video", until: WallInstant(ms: 1_796_000_600_000),
                      balanceMs: 754_000),
        todayUsedMs: 3_600_000, todayEarnedMs: 120_000, probeName: "x11", probeOK: false,
        probeError: "cannot open display :0",
        exercises: [Exercise(name: "squats", perRep: 60_000), Exercise(name: "pushups", perRep: 30_000)])

    @Test func statusSurvivesTheWireBothWays() throws {
        #expect(StatusReport(busDictionary: full.busDictionary) == full)
        var quiet = full
        quiet.shield = .down(balanceMs: 754_000)
        quiet.exercises = []
        quiet.probeOK = true
        quiet.probeError = nil
        quiet.foreground = .init(app: "xterm", title: "", pid: nil, groups: [])
        #expect(StatusReport(busDictionary: quiet.busDictionary) == quiet)
        quiet.foreground = nil
        #expect(StatusReport(busDictionary: quiet.busDictionary) == quiet)
        #expect(quiet.busDictionary["foreground"] == nil)                         // absent, not empty
    }

    @Test func statusUsesTheContractKeysAndTypes() throws {
        let wire = full.busDictionary
        #expect(Set(wire.keys) == ["balance_ms", "metered", "spending", "locked", "foreground", "shield", "today",
                                   "probe", "exercises"])
        #expect(wire["exercises"] == .dictionary(["pushups": .int64(30_000), "squats": .int64(60_000)]))
        #expect(full.exercises.map(\.name) == ["pushups", "squats"])                  // name order
        #expect(wire["balance_ms"] == .int64(754_000))
        guard case let .dictionary(shield)? = wire["shield"], case let .dictionary(today)? = wire["today"],
              case let .dictionary(probe)? = wire["probe"], case let .dictionary(front)? = wire["foreground"] else {
            Issue.record("nested dictionaries missing: \(wire)")
            return
        }
        #expect(shield == full.shield.busDictionary)                               // the same as ShieldChanged
        #expect(today == ["used_ms": .int64(3_600_000), "earned_ms": .int64(120_000)])
        #expect(probe == ["name": .string("x11"), "ok": .bool(false), "error": .string("cannot open display :0")])
        #expect(front["groups"] == .strings(["social", "video"]) && front["pid"] == .int32(42))
    }

    @Test func aStatusMissingARequiredKeyIsNotGuessed() {
        for key in ["balance_ms", "metered", "locked", "shield", "today", "probe", "exercises"] {
            var wire = full.busDictionary
            wire[key] = nil
            #expect(StatusReport(busDictionary: wire) == nil, "without \(key)")
        }
        var wrongType = full.busDictionary
        wrongType["balance_ms"] = .uint64(1)
        #expect(StatusReport(busDictionary: wrongType) == nil)
    }

    @Test func theShieldStateHasOneWireFormWithTheGroupAndAbsentKeys() {
        let up = ShieldState(active: true, reason: .dailyLimit, app: "firefox", group: "video",
                             until: WallInstant(ms: 1_796_000_600_000), balanceMs: 754_000)
        #expect(up.busDictionary == ["active": .bool(true), "reason": .string("daily-limit"), "app": .string("firefox"),
                                     "group": .string("video"), "until_ms": .int64(1_796_000_600_000),
                                     "balance_ms": .int64(754_000)])
        #expect(ShieldState(busDictionary: up.busDictionary) == up)

        // Only earning lifts it, and no group (balance): until_ms 0, no group key.
        let balance = ShieldState(active: true, reason: .balance, app: "discord", balanceMs: 0)
        #expect(balance.busDictionary == ["active": .bool(true), "reason": .string("balance"),
                                          "app": .string("discord"), "until_ms": .int64(0), "balance_ms": .int64(0)])
        #expect(ShieldState(busDictionary: balance.busDictionary) == balance)

        // Down: no reason, the app it covered, and the reason is dropped even if one was left.
        var down = ShieldState.down(balanceMs: 30_000, lastApp: "discord")
        #expect(down.busDictionary == ["active": .bool(false), "app": .string("discord"), "until_ms": .int64(0),
                                       "balance_ms": .int64(30_000)])
        #expect(ShieldState(busDictionary: down.busDictionary) == down)
        down.reason = .balance
        #expect(down.busDictionary["reason"] == nil)

        // A reason from a newer blockerd still covers; missing or mistyped required keys are not guessed.
        var newer = up.busDictionary
        newer["reason"] = .string("curfew")
        #expect(ShieldState(busDictionary: newer)?.reason == nil && ShieldState(busDictionary: newer)?.active == true)
        for key in ["active", "app", "until_ms", "balance_ms"] {
            var wire = up.busDictionary
            wire[key] = nil
            #expect(ShieldState(busDictionary: wire) == nil, "without \(key)")
        }
        var mistyped = up.busDictionary
        mistyped["until_ms"] = .uint64(1)
        #expect(ShieldState(busDictionary: mistyped) == nil)
    }

    @Test func userTextInErrorsIsQuotedShort() {
        #expect(BlockerLimits.quoted("pushups") == "\"pushups\"")
        let long = String(repeating: "x", count: 1_000_000)
        #expect(BlockerLimits.quoted(long) == "\"" + String(repeating: "x", count: 40) + "…\"")
        // The declared bounds refuse an oversized name before anything looks it up.
        let refusal = BlockerInterface.blockFor.refusal(of: (long, 600))
        #expect(refusal?.name == .invalidArgument && (refusal?.message.count ?? .max) < 120, "\(String(describing: refusal))")
        #expect(BlockerInterface.earn.refusal(of: (String(repeating: "p", count: 1025), 3))?.name == .invalidArgument)
        #expect(BlockerInterface.earn.refusal(of: (String(repeating: "p", count: 1024), 3)) == nil)
        #expect(BlockerInterface.unblock.refusal(of: long)?.name == .invalidArgument)
    }

    @Test func everyErrorBlockerdSendsIsItsOwn() {
        #expect(BusErrorName.allCases.allSatisfy { $0.rawValue.hasPrefix("io.github.blockerd.Error.") })
        #expect(Set(BusErrorName.allCases.map(\.rawValue)).count == BusErrorName.allCases.count)
    }

    @Test func balanceChangedIsSentAtMostOnceASecondAndTheLatestValueWins() {
        var throttle = BalanceThrottle()
        #expect(throttle.offer(100, now: 10_000_000) == .send(100))
        #expect(throttle.offer(90, now: 10_200_000) == .wait(until: 11_000_000))
        #expect(throttle.offer(80, now: 10_900_000) == .wait(until: 11_000_000))
        #expect(throttle.due(now: 11_000_500) == 80)                                // the latest, not the first
        #expect(throttle.due(now: 11_100_000) == nil)                               // nothing held twice
        #expect(throttle.offer(70, now: 11_500_000) == .wait(until: 12_000_500))    // a second after the last send
        #expect(throttle.due(now: 12_000_500) == 70)
        #expect(throttle.offer(60, now: 13_100_000) == .send(60))                   // quiet for a second: at once
    }

    @Test func failuresReadAsWhatToDo() {
        func reply(_ name: String, _ message: String = "m", errno: Errno = .ioError) -> BusCallError {
            .reply(BusErrorReply(name: name, message: message, errno: errno))
        }
        let notRunning = BlockerClient.failure(reply("org.freedesktop.DBus.Error.ServiceUnknown"), member: "Status")
        #expect(notRunning == .notRunning(BlockerClient.notRunningMessage))
        #expect(BlockerClient.notRunningMessage.contains("systemctl --user start blockerd"))
        #expect(BlockerClient.failure(reply("org.freedesktop.DBus.Error.NameHasNoOwner"), member: "Earn") == notRunning)
        #expect(BlockerClient.failure(reply(BusErrorName.unknownExercise.rawValue, "unknown exercise"), member: "Earn")
            == .refused(name: BusErrorName.unknownExercise.rawValue, message: "unknown exercise"))
        let timeout = BlockerClient.failure(reply("org.freedesktop.DBus.Error.Timeout", errno: .timedOut),
                                            member: "Status", timeout: 5_000_000)
        #expect(timeout.description.contains("did not answer Status within 5 s"))
        let local = BlockerClient.failure(reply("System.Error.ENOTCONN"), member: "Status")
        guard case .transport = local else { Issue.record("\(local)"); return }
    }
}
