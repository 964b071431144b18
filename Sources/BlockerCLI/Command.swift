import BlockerBus
import BlockerCore
import BlockerConfig
import BlockerSystem

/// Opens a connection to blockerd. main.swift passes the real bus client;
/// tests pass an in-memory service.
public typealias ServiceFactory = (_ environment: [String: String]) throws(BusFailure) -> any BlockerCalls

/// One `blockerctl` command: its declaration, how it reads what the parser
/// found, and what it does. Modelled on swift-argument-parser's ParsableCommand.
public protocol BlockerCommand {
    /// The single declaration the parser, the usage line and the help text come from.
    static var spec: CommandSpec { get }
    /// Checks the values (a usage error here means nothing has been called yet).
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ context: CommandContext) throws(CommandFailure)
}

/// A command that did not do what was asked: `blockerctl: error: MESSAGE — FIX`, exit 1.
public struct CommandFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// What to do about it, when there is something.
    public var fix: String?

    public init(_ message: String, fix: String? = nil) {
        self.message = message
        self.fix = fix
    }

    public var description: String {
        // Translators: a failure and what to do about it.
        fix.map { tr("{message} — {fix}", ["message": message, "fix": $0]) } ?? message
    }
}

/// What the process gives a command: environment, streams, the way to reach
/// blockerd, the clock, and exec. `Invocation.process(connect:)` is the real one.
public struct Invocation {
    public var environment: [String: String]
    public var stdout: any TextOutput
    public var stderr: any TextOutput
    public var stdoutIsTerminal: Bool
    public var connect: ServiceFactory
    /// The wall clock now.
    public var clock: () -> WallInstant
    /// Replaces the process (`logs`); returns only on failure, with the reason.
    public var replaceProcess: ([String]) -> String

    public init(environment: [String: String], stdout: any TextOutput, stderr: any TextOutput,
                stdoutIsTerminal: Bool, connect: @escaping ServiceFactory,
                clock: @escaping () -> WallInstant = { WallClock.now },
                replaceProcess: @escaping ([String]) -> String = SystemCalls.replaceProcess) {
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutIsTerminal = stdoutIsTerminal
        self.connect = connect
        self.clock = clock
        self.replaceProcess = replaceProcess
    }

    /// This process: its environment, fds 1 and 2, and whether fd 1 is a terminal.
    public static func process(connect: @escaping ServiceFactory) -> Invocation {
        Invocation(environment: Environment.current(),
                   stdout: FileDescriptorOutput(descriptor: 1), stderr: FileDescriptorOutput(descriptor: 2),
                   stdoutIsTerminal: SystemCalls.isTerminal(1), connect: connect)
    }
}

/// What `run` sees.
public struct CommandContext {
    public let invocation: Invocation
    public let out: Printer
    public let err: Printer

    init(_ invocation: Invocation) {
        self.invocation = invocation
        out = Printer(output: invocation.stdout,
                      color: colorEnabled(stdoutIsTerminal: invocation.stdoutIsTerminal, environment: invocation.environment))
        err = Printer(output: invocation.stderr, color: false)
    }

    public var environment: [String: String] { invocation.environment }

    /// COLUMNS when it is a sensible number, else 80.
    public var terminalColumns: Int {
        guard let text = environment["COLUMNS"], let columns = Int(text), columns >= 20 else { return 80 }
        return min(columns, 1000)
    }

    /// Connects to blockerd, or fails with the fix.
    public func service() throws(CommandFailure) -> any BlockerCalls {
        do { return try invocation.connect(environment) } catch { throw BusFailureText.failure(error) }
    }

    /// Runs one call, turning a bus failure into the message a person can act on.
    public func call<T>(_ body: (any BlockerCalls) throws(BusFailure) -> T) throws(CommandFailure) -> T {
        let service = try service()
        do { return try body(service) } catch { throw BusFailureText.failure(error) }
    }

    /// The user's zone (TZ, /etc/localtime); UTC, labelled, when it cannot be read.
    var localClock: LocalClock {
        (try? LocalClock(zone: TimeZoneRules.system(environment: environment))) ?? LocalClock(zone: .utc, label: " UTC")
    }

    func warn(_ message: String) { err.line(tr("blockerctl: warning: {message}", ["message": message])) }
}

/// Turns the bus client's failures into `blockerctl: error:` lines with fixes.
public enum BusFailureText {
    public static var startFix: String { BlockerClient.startFix }

    public static func failure(_ failure: BusFailure) -> CommandFailure {
        switch failure {
        case let .notRunning(why) where why.contains(startFix):
            return CommandFailure(why)      // the client's message already says how to start it
        case let .notRunning(why):
            return CommandFailure(tr("blockerd is not running ({why})", ["why": why]), fix: startFix)
        case let .transport(why):
            return CommandFailure(tr("cannot talk to blockerd: {why}", ["why": why]), fix: tr("see what it says with: blockerctl logs"))
        case let .untrustedOwner(why):
            return CommandFailure(why, fix: tr("stop that process, then start yours: systemctl --user start blockerd"))
        case let .refused(name, message):
            switch BusErrorName(rawValue: name) {
            case .configError?:
                return CommandFailure(message, fix: tr("fix blocker.toml, check it with: blockerctl config check"))
            case .storageError?:
                return CommandFailure(message, fix: tr("see blockerctl logs and blockerctl doctor"))
            case .accessDenied?:
                return CommandFailure(tr("blockerd refused the call: {message}", ["message": message]),
                                      fix: tr("run blockerctl as the user blockerd runs as"))
            case .unavailable?:
                return CommandFailure(message, fix: tr("try again in a moment; see: systemctl --user status blockerd"))
            case .internalError?:
                return CommandFailure(tr("blockerd failed: {message}", ["message": message]),
                                      fix: tr("see what it says with: blockerctl logs"))
            case .invalidArgument?, .unknownExercise?, .unknownTarget?, .refused?, nil:
                return CommandFailure(message)
            }
        }
    }
}
