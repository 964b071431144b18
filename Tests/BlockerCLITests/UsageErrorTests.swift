@testable import BlockerCLI
import Testing

/// Every usage mistake: exact message on stderr, exit 2, nothing on stdout,
/// and blockerd never reached (no connection, no call).
@Suite struct UsageErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static func commandError(_ message: String, _ usage: String, _ name: String) -> String {
        "blockerctl: error: \(message)\nusage: \(usage)\nsee blockerctl \(name) --help\n"
    }

    static let earnUsage = "blockerctl earn REPS [EXERCISE] [--request-id ID]"
    static let blockUsage = "blockerctl block TARGET --for DURATION"
    static let historyUsage = "blockerctl history [--days N] [--json] [--csv] [--gaps] [--notes]"

    static let cases: [Case] = [
        Case(arguments: [], stderr: "blockerctl: error: missing command (one of: status, earn, block, unblock, pass, devices, history, report, probe, config check, config names, config pending, config cancel, reload, logs, doctor)\nsee blockerctl --help\n"),
        Case(arguments: ["stauts"], stderr: "blockerctl: error: unknown command \"stauts\"; did you mean \"status\"?\nsee blockerctl --help\n"),
        Case(arguments: ["hist"], stderr: "blockerctl: error: unknown command \"hist\"; did you mean \"history\"?\nsee blockerctl --help\n"),
        Case(arguments: ["frobnicate"], stderr: "blockerctl: error: unknown command \"frobnicate\"\nsee blockerctl --help\n"),
        Case(arguments: ["--verison"], stderr: "blockerctl: error: unknown option \"--verison\"; did you mean \"--version\"?\nsee blockerctl --help\n"),
        Case(arguments: ["config"], stderr: "blockerctl: error: config needs a subcommand: check, names, pending, cancel\nsee blockerctl --help\n"),
        Case(arguments: ["config", "chek"], stderr: "blockerctl: error: unknown command \"config chek\"; did you mean \"config check\"?\nsee blockerctl --help\n"),
        Case(arguments: ["status", "--jsno"], stderr: commandError("unknown option \"--jsno\" for status; did you mean \"--json\"?", "blockerctl status [--json] [--format FORMAT] [--follow] [--low DURATION]", "status")),
        Case(arguments: ["status", "--json=yes"], stderr: commandError("--json takes no value", "blockerctl status [--json] [--format FORMAT] [--follow] [--low DURATION]", "status")),
        Case(arguments: ["status", "--json", "--json"], stderr: commandError("--json is given twice", "blockerctl status [--json] [--format FORMAT] [--follow] [--low DURATION]", "status")),
        Case(arguments: ["status", "now"], stderr: commandError("unexpected argument \"now\"", "blockerctl status [--json] [--format FORMAT] [--follow] [--low DURATION]", "status")),
        Case(arguments: ["earn"], stderr: commandError("missing REPS", earnUsage, "earn")),
        Case(arguments: ["earn", "-5"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"-5\"", earnUsage, "earn")),
        Case(arguments: ["earn", "0"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"0\"", earnUsage, "earn")),
        Case(arguments: ["earn", "1.5"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"1.5\"", earnUsage, "earn")),
        Case(arguments: ["earn", "abc"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"abc\"", earnUsage, "earn")),
        Case(arguments: ["earn", "1000000000"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"1000000000\"", earnUsage, "earn")),
        Case(arguments: ["earn", "1001"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"1001\"", earnUsage, "earn")),
        Case(arguments: ["earn", "+5"], stderr: commandError("REPS must be a whole number from 1 to 1000, not \"+5\"", earnUsage, "earn")),
        Case(arguments: ["earn", "10", ""], stderr: commandError("EXERCISE is empty; name one of [earn], or leave it out", earnUsage, "earn")),
        Case(arguments: ["earn", "10", "pushups", "squats"], stderr: commandError("unexpected argument \"squats\"", earnUsage, "earn")),
        Case(arguments: ["block", "social"], stderr: commandError("missing --for DURATION", blockUsage, "block")),
        Case(arguments: ["block", "--for", "1h"], stderr: commandError("missing TARGET", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for"], stderr: commandError("--for needs a value (--for DURATION)", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for", "1h3"], stderr: commandError("--for \"1h3\" is not a duration: every number needs a unit (d, h, m, s), like 90s, 30m, 1h30m, 2d", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for", "-5m"], stderr: commandError("--for -5m: a block cannot last a negative time; give 1m to 7d, like --for 30m", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for=0m"], stderr: commandError("--for 0m is too short: a block lasts at least 1m, like --for 30m", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for", "59s"], stderr: commandError("--for 59s is too short: a block lasts at least 1m, like --for 30m", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for", "8d"], stderr: commandError("--for 8d is too long: a block lasts at most 7d, like --for 7d", blockUsage, "block")),
        Case(arguments: ["block", "social", "--for", "1h", "--for", "2h"], stderr: commandError("--for is given twice", blockUsage, "block")),
        Case(arguments: ["unblock"], stderr: commandError("missing TARGET", "blockerctl unblock TARGET", "unblock")),
        Case(arguments: ["history", "--days", "0"], stderr: commandError("--days must be a whole number from 1 to 366, not \"0\"", historyUsage, "history")),
        Case(arguments: ["history", "--days", "367"], stderr: commandError("--days must be a whole number from 1 to 366, not \"367\"", historyUsage, "history")),
        Case(arguments: ["history", "--days", "abc"], stderr: commandError("--days must be a whole number from 1 to 366, not \"abc\"", historyUsage, "history")),
        Case(arguments: ["history", "--dyas", "3"], stderr: commandError("unknown option \"--dyas\" for history; did you mean \"--days\"?", historyUsage, "history")),
        Case(arguments: ["logs", "-x"], stderr: commandError("unknown option \"-x\" for logs", "blockerctl logs [-f]", "logs")),
        Case(arguments: ["reload", "now"], stderr: commandError("unexpected argument \"now\"", "blockerctl reload", "reload")),
        Case(arguments: ["config", "check", "a.toml", "b.toml"], stderr: commandError("unexpected argument \"b.toml\"", "blockerctl config check [FILE]", "config check")),
    ]

    @Test(arguments: cases)
    func refusedWithTheExactMessageAndNothingCalled(_ example: Case) {
        let service = RecordingCalls()
        let run = blockerctl(example.arguments, service: service)
        #expect(run.status == 2)
        #expect(run.stderr == example.stderr)
        #expect(run.stdout.isEmpty)
        #expect(run.connections == 0)
        #expect(service.calls.isEmpty)
        #expect(run.execed.isEmpty)
    }

    @Test func theLimitsThemselvesAreAccepted() {
        let service = RecordingCalls()
        #expect(blockerctl(["earn", "1"], service: service).status == 0)
        #expect(blockerctl(["earn", "1000", "squats"], service: service).status == 0)
        #expect(blockerctl(["block", "social", "--for", "1m"], service: service).status == 0)
        #expect(blockerctl(["block", "social", "--for=7d"], service: service).status == 0)
        #expect(blockerctl(["history", "--days", "1"], service: service).status == 0)
        #expect(blockerctl(["history", "--days=366"], service: service).status == 0)
        #expect(service.calls == [.earn(exercise: "", reps: 1), .earn(exercise: "squats", reps: 1000),
                                  .blockFor(target: "social", seconds: 60), .blockFor(target: "social", seconds: 604_800),
                                  .history(days: 1), .gaps(days: 1), .notes(days: 1), .opens(days: 1), .history(days: 366), .gaps(days: 366),
                                  .notes(days: 366), .opens(days: 366)])
    }

    @Test func suggestionsAreForNearMissesOnly() {
        #expect(Suggestion.closest(to: "stauts", among: ["status", "earn"]) == "status")
        #expect(Suggestion.closest(to: "docter", among: ["doctor", "block"]) == "doctor")
        #expect(Suggestion.closest(to: "blok", among: ["block", "unblock"]) == "block")
        #expect(Suggestion.closest(to: "zzz", among: ["status", "earn"]) == nil)
        #expect(Suggestion.editDistance("ab", "ba") == 1)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
    }
}
