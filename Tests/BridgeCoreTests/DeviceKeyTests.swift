import PropertyBased
import Testing

@testable import BridgeCore

@Suite("Device keys")
struct DeviceKeyTests {
    @Test(
        "tokens are one device exactly when their UTF-8 bytes are equal",
        arguments: [
            ("abc", "abc", true),
            ("abc", "abd", false),
            ("abc", "abcd", false),
            ("", "", true),
            // Canonically equivalent, so equal as Strings: a composed and a decomposed é (2 and 3 bytes).
            ("\u{E9}", "e\u{301}", false),
            // Canonically equivalent with the same byte count: two combining marks in either order.
            ("a\u{301}\u{323}", "a\u{323}\u{301}", false),
            // A long token, equal, built two ways (a literal and a slice of a longer string).
            (String(repeating: "x", count: 150), String(String(repeating: "x", count: 160).prefix(150)), true),
            // Long tokens that differ only in their last byte.
            (String(repeating: "x", count: 149) + "a", String(repeating: "x", count: 149) + "b", false),
        ])
    func equality(_ left: String, _ right: String, expected: Bool) {
        #expect((DeviceKey(token: left) == DeviceKey(token: right)) == expected)
        if expected { #expect(DeviceKey(token: left).hashValue == DeviceKey(token: right).hashValue) }
    }

    @Test("random byte strings: equal keys exactly when equal bytes, and then equal hashes")
    func property() async {
        await propertyCheck(
            count: 500, input: Gen.uint8(in: 0...127).array(of: 0...40), Gen.uint8(in: 0...127).array(of: 0...40)
        ) { left, right in
            let a = DeviceKey(token: String(decoding: left, as: UTF8.self))
            let b = DeviceKey(token: String(decoding: right, as: UTF8.self))
            let c = DeviceKey(token: String(decoding: left, as: UTF8.self))
            #expect((a == b) == (left == right))
            #expect(a == c && a.hashValue == c.hashValue)
        }
    }
}
