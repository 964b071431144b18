import BlockerSystem
import Glibc
import Testing

@Suite struct EnvironmentTests {
    @Test func aDuplicatedNameKeepsItsFirstValueAsGetenvDoes() {
        let environment = Environment.parse(["HOME=/home/first", "TZ=UTC", "HOME=/home/second"])
        #expect(environment == ["HOME": "/home/first", "TZ": "UTC"])
    }

    @Test func valuesKeepEveryByteAfterTheFirstEqualsSign() {
        let environment = Environment.parse(["EMPTY=", "OPTS=a=b=c", "=nameless", "NOEQUALS"])
        #expect(environment == ["EMPTY": "", "OPTS": "a=b=c", "": "nameless"])
    }

    @Test func currentAgreesWithGetenv() {
        let environment = Environment.current()
        #expect(!environment.isEmpty)
        for (name, value) in environment where !name.isEmpty {
            #expect(getenv(name).map { String(cString: $0) } == value, "\(name)")
        }
    }
}
