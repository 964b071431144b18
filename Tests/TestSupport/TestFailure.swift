/// Something a test needed that did not work (a missing tool, a server that
/// did not start): thrown, so the test fails with this description.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
