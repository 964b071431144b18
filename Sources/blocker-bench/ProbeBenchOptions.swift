/// The options the event-driven probe benches share (`blocker-bench sway`,
/// `blocker-bench wlroots`): `--samples N`, `--switches N≥2`, `--apps A,B`.
struct ProbeBenchOptions {
    var samples = 2000
    var switches = 40
    var apps = ["bench-a", "bench-b"]

    init(_ arguments: [String], bench: String) {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch (option, rest.popFirst()) {
            case let ("--samples", value?) where Int(value).map({ $0 > 0 }) == true: samples = Int(value)!
            case let ("--switches", value?) where Int(value).map({ $0 > 1 }) == true: switches = Int(value)!
            case let ("--apps", value?) where value.split(separator: ",").count == 2:
                apps = value.split(separator: ",").map(String.init)
            default:
                benchFail("usage: blocker-bench \(bench) [--samples N] [--switches N≥2] [--apps A,B]")
            }
        }
    }
}
