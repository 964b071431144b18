import BlockerCore
import BlockerSystemd
import Foundation
import Testing
@testable import BlockerBus

/// The interface as declared once: the checked-in introspection, the new
/// Status entries, blockerd's own error names, and arguments too big to echo.
/// Serialized like BlockerdBusTests: each test runs a bus and a blockerd.
@Suite(.serialized) struct InterfaceTests {
    /// docs/io.github.blockerd.Blocker1.xml, next to the sources.
    static let interfaceFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/io.github.blockerd.Blocker1.xml").standardized.path

    @Test func theCheckedInIntrospectionIsWhatBlockerdServes() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let connection = try BusConnection(address: session.bus.address)
        let call = try connection.methodCall(destination: BusNames.service, path: BusNames.objectPath,
                                             interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        let live = try connection.call(call, timeoutMicroseconds: 5_000_000).readString()
        let served = try #require(IntrospectionXML.interfaceElement(BusNames.interface, in: live), "\(live)")
        let file = try String(contentsOfFile: Self.interfaceFile, encoding: .utf8)
        let checkedIn = try #require(IntrospectionXML.interfaceElement(BusNames.interface, in: file))
        #expect(IntrospectionXML.normalized(served) == IntrospectionXML.normalized(checkedIn),
                "docs/io.github.blockerd.Blocker1.xml is out of date; blockerd serves:\n\(served)")
        // The comparison does look at the arguments.
        #expect(IntrospectionXML.normalized(checkedIn).contains(#"<arg direction="in" name="reps" type="u"/>"#))
    }

    @Test func statusCarriesTheExercisesAsBlockerdHasThem() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (daemon, client) = (session.daemon, session.client)
        #expect(try client.status().exercises == [Exercise(name: "pushups", perRep: 30_000)])
        try daemon.writeConfig(testConfig(directory: daemon.scratch.path, earn: "squats = 1\npushups = 0.5"))
        try client.reload()
        #expect(try client.status().exercises == [Exercise(name: "pushups", perRep: 30_000),
                                                  Exercise(name: "squats", perRep: 60_000)])
        // The same, without waiting: the overlay's refresh when a cover shows.
        var answer: Result<StatusReport, BusFailure>?
        client.statusAsync { answer = $0 }
        try pump(client, seconds: 3) { answer != nil }
        #expect(try answer?.get().exercises.map(\.name) == ["pushups", "squats"])
    }

    @Test func everyRefusalCarriesOneOfBlockerdsOwnNames() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (daemon, client) = (session.daemon, session.client)
        var names: [String] = []
        func note<T>(_ call: () throws(BusFailure) -> T) {
            do { _ = try call(); Issue.record("expected a refusal") } catch {
                if case let .refused(name, _) = error { names.append(name) } else { Issue.record("\(error)") }
            }
        }
        note { () throws(BusFailure) in try client.earn(exercise: "pushups", reps: 0) }
        note { () throws(BusFailure) in try client.earn(exercise: "burpees", reps: 1) }
        note { () throws(BusFailure) in try client.blockFor(target: "nowhere", seconds: 600) }
        note { () throws(BusFailure) in try client.unblock(target: "social") }
        note { () throws(BusFailure) in try client.history(days: 0) }
        try daemon.writeConfig("bogus = 1\n")
        note { () throws(BusFailure) in try client.reload() }
        #expect(names.count == 6)
        #expect(names.allSatisfy { $0.hasPrefix("io.github.blockerd.Error.") }, "\(names)")
        #expect(Set(names) == [BusErrorName.invalidArgument, .unknownExercise, .unknownTarget, .configError]
            .map(\.rawValue).reduce(into: Set<String>()) { $0.insert($1) })
    }

    @Test func anOversizedArgumentGetsAShortQuickRefusal() throws {
        let session = try startBlockerd(front: "discord")
        defer { session.stop() }
        let client = session.client
        let huge = String(repeating: "x", count: 1 << 20)
        for (what, call) in [
            ("BlockFor", { () throws(BusFailure) in _ = try client.blockFor(target: huge, seconds: 600) }),
            ("Unblock", { () throws(BusFailure) in try client.unblock(target: huge) }),
            ("Earn", { () throws(BusFailure) in _ = try client.earn(exercise: huge, reps: 3) }),
        ] as [(String, () throws(BusFailure) -> Void)] {
            let started = Date()
            var failure: BusFailure?
            do { try call() } catch { failure = error }
            let seconds = Date().timeIntervalSince(started)
            guard case let .refused(name, message)? = failure else {
                Issue.record("\(what): \(String(describing: failure))")
                continue
            }
            #expect(name == BusErrorName.invalidArgument.rawValue, "\(what)")
            #expect(message.utf8.count < 200 && message.contains("at most 1024 bytes"), "\(what): \(message.prefix(300))")
            #expect(seconds < 1, "\(what) took \(seconds) s")
        }
        // Under the limit but long: the unknown name is quoted to 40 characters.
        let long = String(repeating: "y", count: 1000)
        do {
            _ = try client.blockFor(target: long, seconds: 600)
            Issue.record("a 1000-character target was accepted")
        } catch {
            #expect(error.description.hasPrefix("\"" + String(repeating: "y", count: 40) + "…\" is neither"),
                    "\(error.description.prefix(200))")
            #expect(error.description.utf8.count < 200)
        }
        #expect(try client.status().shield.active == true)                             // the balance shield, nothing else
        #expect(try client.status().shield.reason == .balance)
    }
}

/// Just enough XML for comparing introspection: one element cut out, and a
/// form where whitespace, comments and attribute order do not matter.
enum IntrospectionXML {
    /// `<interface name="NAME">…</interface>`, nil when absent.
    static func interfaceElement(_ name: String, in xml: String) -> String? {
        guard let start = xml.range(of: "<interface name=\"\(name)\">"),
              let end = xml.range(of: "</interface>", range: start.upperBound..<xml.endIndex) else { return nil }
        return String(xml[start.lowerBound..<end.upperBound])
    }

    /// One tag a line, attributes sorted, `<x></x>` written `<x/>`, comments and text dropped.
    static func normalized(_ xml: String) -> String {
        var text = xml
        while let open = text.range(of: "<!--"), let close = text.range(of: "-->", range: open.upperBound..<text.endIndex) {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        var tags: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            tags.append(tag(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        // An element opened and closed at once is the same as one written empty.
        var merged: [String] = []
        for tag in tags {
            if tag.hasPrefix("</"), let last = merged.last, !last.hasSuffix("/>"), !last.hasPrefix("</"),
               last.dropFirst().prefix(while: { $0 != " " && $0 != ">" }) == tag.dropFirst(2).dropLast() {
                merged[merged.count - 1] = String(last.dropLast()) + "/>"
            } else {
                merged.append(tag)
            }
        }
        return merged.joined(separator: "\n")
    }

    /// `name a="1" b="2"` with attributes in name order.
    private static func tag(_ inside: String) -> String {
        let selfClosing = inside.hasSuffix("/")
        let body = selfClosing ? String(inside.dropLast()) : inside
        if body.hasPrefix("/") { return "<\(body.trimmingCharacters(in: .whitespaces))>" }
        let name = String(body.prefix { !$0.isWhitespace })
        var attributes: [String] = []
        var scan = Substring(body.dropFirst(name.count))
        while let equals = scan.firstIndex(of: "="), let quote = scan[equals...].firstIndex(of: "\""),
              let end = scan[scan.index(after: quote)...].firstIndex(of: "\"") {
            let key = scan[..<equals].trimmingCharacters(in: .whitespaces)
            attributes.append("\(key)=\"\(scan[scan.index(after: quote)..<end])\"")
            scan = scan[scan.index(after: end)...]
        }
        let joined = ([name] + attributes.sorted()).joined(separator: " ")
        return "<\(joined)\(selfClosing ? "/" : "")>"
    }
}
