@testable import BridgeCore
import PropertyBased
import Testing

@Suite("Finding text in bytes")
struct BytesTextTests {
    @Test("the last index of a byte is the standard library's, wherever the search starts and ends")
    func lastIndex() async {
        let bytes = Gen.element(of: [UInt8(ascii: ","), 0, 0x2D, 0xAC, 0x80, 0xFF, UInt8(ascii: "a")]).array(of: 0...40)
        await propertyCheck(count: 1000, input: bytes, Gen.int(in: -2...42), Gen.int(in: -2...42)) { bytes, start, end in
            let bytes = bytes.compactMap { $0 }
            let found = bytes.withUnsafeBytes { $0.lastIndex(of: UInt8(ascii: ","), before: end, notBefore: start) }
            let lower = min(max(start, 0), bytes.count)
            let range = lower..<max(min(end, bytes.count), lower)
            #expect(found == bytes[range].lastIndex(of: UInt8(ascii: ",")))
        }
    }

    @Test("text is found only where all of it is, within the bytes", arguments: [
        ("abc", 0, true), ("abc", 1, false), ("bc", 1, true), ("bcd", 1, false), ("c", 2, true), ("c", 3, false),
        ("", 3, true), ("", 4, false), ("a", -1, false), ("abd", 0, false),
    ] as [(StaticString, Int, Bool)])
    func holds(text: StaticString, offset: Int, expected: Bool) {
        #expect(Array("abc".utf8).withUnsafeBytes { $0.holds(text, at: offset) } == expected)
    }
}
