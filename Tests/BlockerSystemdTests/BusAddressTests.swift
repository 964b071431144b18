import Foundation
import Testing
@testable import BlockerSystemd

/// Where the buses are, from the environment the caller passes.
@Suite struct BusAddressTests {
    @Test func sessionAddressComesFromTheEnvironment() {
        #expect(BusAddress.session(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
        #expect(BusAddress.session(environment: [:]) == nil)
        #expect(BusAddress.session(environment: ["XDG_RUNTIME_DIR": "/nonexistent-blocker-dir"]) == nil)
    }

    @Test func theRuntimeDirectorySocketIsEscaped() throws {
        let runtime = FileManager.default.temporaryDirectory.path + "/blocker run,\(getpid())"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        #expect(FileManager.default.createFile(atPath: runtime + "/bus", contents: nil))
        #expect(BusAddress.session(environment: ["XDG_RUNTIME_DIR": runtime])
            == "unix:path=" + BusAddress.escape(runtime) + "/bus")
        #expect(BusAddress.session(environment: ["XDG_RUNTIME_DIR": runtime])?.contains(",") == false)
        // A relative XDG_RUNTIME_DIR is ignored, as sd-bus does.
        #expect(BusAddress.session(environment: ["XDG_RUNTIME_DIR": "relative"]) == nil)
    }

    @Test func systemAddressHasADefault() {
        #expect(BusAddress.system(environment: [:]) == "unix:path=/run/dbus/system_bus_socket")
        #expect(BusAddress.system(environment: ["DBUS_SYSTEM_BUS_ADDRESS": ""]) == "unix:path=/run/dbus/system_bus_socket")
        #expect(BusAddress.system(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/y"]) == "unix:path=/y")
    }

    @Test func escaping() {
        #expect(BusAddress.escape("/run/user/1000/bus") == "/run/user/1000/bus")
        #expect(BusAddress.escape("/tmp/a b,c=d") == "/tmp/a%20b%2Cc%3Dd")
        #expect(BusAddress.escape("/tmp/é;") == "/tmp/%C3%A9%3B")
    }

    @Test func matchRulesQuoteTheirValues() {
        let rule = BusMatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: "a'b")
        #expect(rule.text == "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='a'\\''b'")
        #expect(BusMatchRule(member: "ActiveChanged").text == "type='signal',member='ActiveChanged'")
    }
}
