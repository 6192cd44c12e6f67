import PropertyBased
import Testing

@testable import FCMTranslation

/// `DecimalInteger.parse` must read bytes exactly as `Int(_: String)` reads text.
@Suite("Decimal integers from bytes")
struct DecimalIntegerTests {
    static func parse(_ text: String) -> Int? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalInteger.parse($0) }
    }

    @Test(
        "signs, digits and the limits",
        arguments: [
            ("0", 0), ("7", 7), ("+3", 3), ("-0", 0), ("007", 7), ("-42", -42),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
            // The longest without overflow checks, and the shortest with them.
            ("999999999999999999", 999_999_999_999_999_999), ("-999999999999999999", -999_999_999_999_999_999),
            ("1000000000000000000", 1_000_000_000_000_000_000), ("+0000000000000000001", 1),
        ] as [(String, Int)])
    func valid(_ text: String, _ value: Int) {
        #expect(Self.parse(text) == value)
    }

    @Test(
        "not a whole number, or out of range",
        arguments: [
            "", "+", "-", " 1", "1 ", "1.0", "1e2", "0x1", "--1", "+-1", "١",
            "9223372036854775808", "-9223372036854775809", "99999999999999999999",
        ])
    func invalid(_ text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test("agrees with Int(String) on random text of signs, digits and other bytes")
    func agreesWithStandardLibrary() async {
        let alphabet = Array("+-0123456789 .e9")
        let text = Gen.int(in: 0...alphabet.count - 1).map { alphabet[$0] }.string(of: 0...22)
        await propertyCheck(count: 2000, input: text) { text in
            #expect(Self.parse(text) == Int(text), "\(text)")
        }
    }
}
