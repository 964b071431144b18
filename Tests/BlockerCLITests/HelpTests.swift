@testable import BlockerCLI
import BlockerCore
import Testing

@Suite struct HelpTests {
    @Test func topHelpListsEveryCommandOnOneLineWithItsAbstract() {
        for flag in ["--help", "-h"] {
            let run = blockerctl([flag])
            #expect(run.status == 0 && run.stderr.isEmpty)
            let lines = run.stdout.split(separator: "\n").map(String.init)
            for command in BlockerCtl.visibleCommands {
                let line = lines.filter { $0.hasPrefix("  \(command.spec.name) ") }
                #expect(line.count == 1, "\(command.spec.name) listed once")
                #expect(line.first?.hasSuffix(command.spec.abstract) == true)
            }
        }
    }

    @Test func theContractsCommandsAreAllThere() {
        let names = BlockerCtl.visibleCommands.map { $0.spec.name }
        #expect(names == ["status", "earn", "block", "unblock", "pass", "devices", "history", "report", "probe", "config check", "config names",
                          "config pending", "config cancel",
                          "reload", "logs", "doctor"])
        #expect(BlockerCtl.commands.filter { $0.spec.isHidden }.map { $0.spec.name } == ["completions", "man", "browser-host"])
    }

    @Test func topHelpAbstractsStartInOneColumn() {
        let lines = blockerctl(["--help"]).stdout.split(separator: "\n").map(String.init)
        let columns = BlockerCtl.visibleCommands.map { command -> Int in
            let line = lines.first { $0.hasPrefix("  \(command.spec.name) ") }!
            return line.count - command.spec.abstract.count
        }
        #expect(Set(columns).count == 1)
    }

    @Test(arguments: BlockerCtl.commands.map { $0.spec.name })
    func everyCommandHasHelpGeneratedFromItsDeclaration(name: String) throws {
        let command = try #require(BlockerCtl.commands.first { $0.spec.name == name })
        let spec = command.spec
        let path = name.split(separator: " ").map(String.init)
        let long = blockerctl(path + ["--help"])
        let short = blockerctl(path + ["-h"])
        #expect(long.status == 0 && long.stderr.isEmpty && long.connections == 0)
        #expect(short.stdout == long.stdout)
        let lines = long.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "usage: \(spec.usage)")
        #expect(lines.contains(spec.abstract))
        for argument in spec.arguments {
            #expect(lines.contains { $0.hasPrefix("  \(argument.name) ") && $0.hasSuffix(argument.help) })
        }
        for option in spec.options {
            #expect(lines.contains { $0.hasPrefix("  ") && $0.contains(option.long) && $0.hasSuffix(option.help) })
        }
        #expect(lines.contains { $0.hasPrefix("  -h, --help") })
    }

    @Test func usageLinesShowRequiredAndOptionalParts() {
        #expect(EarnCommand.spec.usage == "blockerctl earn REPS [EXERCISE] [--request-id ID]")
        #expect(BlockCommand.spec.usage == "blockerctl block TARGET --for DURATION")
        #expect(HistoryCommand.spec.usage == "blockerctl history [--days N] [--json] [--csv] [--gaps] [--notes]")
        #expect(ReportCommand.spec.usage == "blockerctl report --output FILE [--weeks N]")
        #expect(LogsCommand.spec.usage == "blockerctl logs [-f]")
        #expect(ConfigCheckCommand.spec.usage == "blockerctl config check [FILE]")
        #expect(ProbeCommand.spec.usage == "blockerctl probe [--json] [--watch] [--config FILE]")
    }

    @Test func helpWinsOverOtherMistakesAndCallsNothing() {
        let service = RecordingCalls()
        let run = blockerctl(["earn", "abc", "--bogus", "--help"], service: service)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("usage: blockerctl earn REPS [EXERCISE] [--request-id ID]\n"))
        #expect(service.calls.isEmpty && run.connections == 0)
    }

    @Test func helpAsAWord() {
        #expect(blockerctl(["help"]).stdout == BlockerCtl.topHelp)
        #expect(blockerctl(["help", "config", "check"]).stdout == ConfigCheckCommand.spec.help)
        let unknown = blockerctl(["help", "stauts"])
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean \"status\"?"))
    }

    @Test func versionPrintsTheVersion() {
        let run = blockerctl(["--version"])
        #expect(run.status == 0 && run.stdout == "blockerctl \(BlockerVersion.current)\n" && run.stderr.isEmpty)
    }

    @Test func helpAfterDashDashIsAnArgument() {
        // `--` ends options: "--help" is then a TARGET, and blockerd is asked.
        let service = RecordingCalls()
        let run = blockerctl(["unblock", "--", "--help"], service: service)
        #expect(run.status == 0)
        #expect(service.calls == [.unblock(target: "--help")])
    }
}
