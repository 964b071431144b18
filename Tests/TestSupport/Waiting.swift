import Foundation
import Glibc

/// Polls `condition` every 20 ms until it holds; throws when `timeout` seconds pass first.
public func waitUntil(_ what: String, timeout: TimeInterval = 10, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    throw TestFailure("timed out after \(timeout) s waiting for \(what)")
}
