import FCMTranslation
import PropertyBased
import Testing

/// Integers written as JSON, and their length known without writing them.
@Suite("Integer output")
struct IntegerOutputTests {
    static func written(_ value: Int64) -> String {
        String(decoding: ByteWriter.array { JSONOutput.writeInteger(value, to: &$0) }, as: UTF8.self)
    }

    @Test(
        "digits, signs and the limits, each as the standard library writes it",
        arguments: [
            0, 1, 9, 10, 99, 100, -1, -9, -10, 1_700_000_000_000, 999_999_999_999_999_999, 1_000_000_000_000_000_000,
            Int64.max, Int64.min, Int64.min + 1,
        ] as [Int64])
    func limits(_ value: Int64) {
        #expect(Self.written(value) == String(value))
        #expect(JSONOutput.integerByteCount(value) == String(value).utf8.count)
    }

    @Test("the length of any integer is that of its text")
    func anyInteger() async {
        // Every digit count, signed: 10^k - 1, 10^k or 10^k + 1 and its negative, and any integer.
        let power = Gen.int(in: 0...18).map { (0..<$0).reduce(Int64(1)) { product, _ in product * 10 } }
        await propertyCheck(count: 1000, input: power, Gen.int64(in: -1...1), Gen.int64(in: Int64.min...Int64.max)) {
            power, edge, any in
            for value in [power &+ edge, 0 &- (power &+ edge), any] {
                #expect(JSONOutput.integerByteCount(value) == String(value).utf8.count, "\(value)")
                #expect(Self.written(value) == String(value))
            }
        }
    }
}
