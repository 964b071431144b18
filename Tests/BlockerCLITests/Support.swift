import BlockerBus
@testable import BlockerCLI
import BlockerCore
import Foundation
import Testing
import TestSupport

/// An in-memory blockerd for the CLI's own tests (the real bus client comes
/// with the bus branch): answers from its fields and records every call, so a
/// test can check that a usage error called nothing.
final class RecordingCalls: BlockerCalls {
    enum Call: Equatable {
        case status
        case earn(exercise: String, reps: UInt32)
        case blockFor(target: String, seconds: UInt64)
        case unblock(target: String)
        case history(days: UInt32)
        case reload
        case pendingChanges
        case cancelPending
        case gaps(days: UInt32)
        case notes(days: UInt32)
        case usePass(group: String)
        case answerPause(group: String, open: Bool, reason: String)
        case opens(days: UInt32)
    }

    private(set) var calls: [Call] = []
    /// When set, every call fails with it (after being recorded).
    var failure: BusFailure?
    var report = RecordingCalls.sampleReport
    var earned: (earnedMs: Milliseconds, balanceMs: Milliseconds) = (300_000, 3_900_000)
    var blockedUntil: WallInstant = 0
    var historyRows: [HistoryRow] = []
    var pending: [PendingChange] = []
    var gapRows: [Gap] = []
    var noteRows: [IntegrityNote] = []
    var openRows: [OpenDaySummary] = []
    var passUntil: WallInstant = 0

    static let sampleReport = StatusReport(
        balanceMs: 3_900_000, metered: true, locked: false,
        foreground: .init(app: "firefox", title: "YouTube — \"Mozilla\" Firefox", pid: 42, groups: ["video"]),
        shield: .down(balanceMs: 3_900_000),
        todayUsedMs: 1_500_000, todayEarnedMs: 1_800_000, probeName: "x11", probeOK: true, probeError: nil,
        exercises: [Exercise(name: "squats", perRep: 60_000), Exercise(name: "pushups", perRep: 30_000)])

    private func record(_ call: Call) throws(BusFailure) {
        calls.append(call)
        if let failure { throw failure }
    }

    func status() throws(BusFailure) -> StatusReport {
        try record(.status)
        return report
    }

    func earn(exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        try record(.earn(exercise: exercise, reps: reps))
        return earned
    }

    /// The request ids `earnOnce` was called with (the call itself is recorded as `.earn`).
    private(set) var requestIDs: [String] = []

    func earnOnce(requestID: String, exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        requestIDs.append(requestID)
        return try earn(exercise: exercise, reps: reps)
    }

    func blockFor(target: String, seconds: UInt64) throws(BusFailure) -> WallInstant {
        try record(.blockFor(target: target, seconds: seconds))
        return blockedUntil
    }

    func unblock(target: String) throws(BusFailure) {
        try record(.unblock(target: target))
    }

    func pendingChanges() throws(BusFailure) -> [PendingChange] {
        try record(.pendingChanges)
        return pending
    }

    func gaps(days: UInt32) throws(BusFailure) -> [Gap] {
        try record(.gaps(days: days))
        return gapRows
    }

    func gapsEx(days: UInt32) throws(BusFailure) -> [Gap] {
        try record(.gaps(days: days))
        return gapRows
    }

    func notes(days: UInt32) throws(BusFailure) -> [IntegrityNote] {
        try record(.notes(days: days))
        return noteRows
    }

    func usePass(group: String) throws(BusFailure) -> WallInstant {
        try record(.usePass(group: group))
        return passUntil
    }

    func answerPause(group: String, open: Bool, reason: String) throws(BusFailure) {
        try record(.answerPause(group: group, open: open, reason: reason))
    }

    func opens(days: UInt32) throws(BusFailure) -> [OpenDaySummary] {
        try record(.opens(days: days))
        return openRows
    }

    func cancelPending() throws(BusFailure) -> UInt32 {
        try record(.cancelPending)
        defer { pending = [] }
        return UInt32(pending.count)
    }

    func history(days: UInt32) throws(BusFailure) -> [HistoryRow] {
        try record(.history(days: days))
        return historyRows
    }

    func reload() throws(BusFailure) {
        try record(.reload)
    }
}

/// What one in-process `blockerctl` run left behind.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// How many times the command asked for a connection.
    var connections: Int
    var execed: [[String]]
}

/// 2025-06-02 12:00:00 UTC, a Monday.
let testNow: WallInstant = 1_748_865_600_000

/// Runs `blockerctl ARGS` in this process against `service` (nil: no daemon).
func blockerctl(_ arguments: [String], service: RecordingCalls? = nil,
                environment: [String: String] = ["TZ": "UTC", "HOME": "/nonexistent-home"],
                terminal: Bool = false, now: WallInstant = testNow) -> CLIRun {
    let out = CapturedOutput(), err = CapturedOutput()
    final class Counter { var connections = 0; var execed: [[String]] = [] }
    let counter = Counter()
    let invocation = Invocation(
        environment: environment, stdout: out, stderr: err, stdoutIsTerminal: terminal,
        connect: { (_: [String: String]) throws(BusFailure) -> any BlockerCalls in
            counter.connections += 1
            guard let service else { throw BusFailure.notRunning("no session bus in this test") }
            return service
        },
        clock: { now },
        replaceProcess: { argv in
            counter.execed.append(argv)
            return "exec is recorded, not done, in this test"
        })
    let status = BlockerCtl.run(arguments, invocation)
    return CLIRun(status: status, stdout: out.text, stderr: err.text, connections: counter.connections, execed: counter.execed)
}

/// Parses one JSON document with Foundation (the CLI itself writes it by hand).
func parseJSON(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

func object(_ value: Any?) throws -> [String: Any] {
    try #require(value as? [String: Any])
}

/// A config whose command probe prints whatever `front.json` in `directory` holds (at first: nothing in front).
func probeConfig(in directory: TemporaryDirectory, pollInterval: String = "200ms") throws -> String {
    try directory.writeFront(nil)
    return try directory.write("blocker.toml", commandProbeConfig(
        frontFile: directory.file("front.json"), pollInterval: pollInterval, warnBefore: nil, sections: """
            [[group]]
            name = "video"
            apps = ["firefox"]

            [[group]]
            name = "browsers"
            apps = ["firefox", "chromium"]
            """))
}
