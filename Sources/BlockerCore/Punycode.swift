/// IDNA's ASCII form of a host name (RFC 3492 Punycode, `xn--` labels): what
/// browsers put in a URL's host, so a site written in Unicode
/// (`sites = ["bücher.de"]`, the Public Suffix List's own rules) compares
/// equal to it. Lowercasing is the only mapping done (no full UTS #46).
public enum Punycode {
    static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 0x80

    /// `bücher.de` → `xn--bcher-kva.de`; ASCII labels are only lowercased.
    public static func asciiHost(_ host: String) -> String {
        host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
            .map { label in label.unicodeScalars.allSatisfy(\.isASCII) ? String(label) : "xn--" + encode(String(label)) }
            .joined(separator: ".")
    }

    /// The Punycode of one label, without its `xn--` prefix (RFC 3492, 6.3).
    public static func encode(_ label: String) -> String {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while handled < input.count {
            let next = input.filter { $0 >= n }.min()!
            delta += (next - n) * (handled + 1)
            n = next
            for code in input {
                if code < n { delta += 1 }
                guard code == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value + 22)))
    }

    private static func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
