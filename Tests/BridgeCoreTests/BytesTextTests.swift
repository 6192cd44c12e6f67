import PropertyBased
import Testing

@testable import BridgeCore

@Suite("Finding text in bytes")
struct BytesTextTests {
    @Test("the last index of a byte is the standard library's, wherever the search starts and ends")
    func lastIndex() async {
        let bytes = Gen.element(of: [UInt8(ascii: ","), 0, 0x2D, 0xAC, 0x80, 0xFF, UInt8(ascii: "a")]).array(of: 0...40)
        await propertyCheck(count: 1000, input: bytes, Gen.int(in: -2...42), Gen.int(in: -2...42)) {
            bytes, start, end in
            let bytes = bytes.compactMap { $0 }
            let found = bytes.withUnsafeBytes { $0.lastIndex(of: UInt8(ascii: ","), before: end, notBefore: start) }
            let lower = min(max(start, 0), bytes.count)
            let range = lower..<max(min(end, bytes.count), lower)
            #expect(found == bytes[range].lastIndex(of: UInt8(ascii: ",")))
        }
    }

    @Test("the first index of a byte is the standard library's, wherever the search starts")
    func firstIndex() async {
        let bytes = Gen.element(of: [UInt8(ascii: ","), 0, 0x2D, 0xAC, 0x80, 0xFF, UInt8(ascii: "a")]).array(of: 0...40)
        await propertyCheck(count: 1000, input: bytes, Gen.int(in: -2...42)) { bytes, start in
            let bytes = bytes.compactMap { $0 }
            let found = bytes.withUnsafeBytes { $0.firstIndex(of: UInt8(ascii: ","), from: start) }
            #expect(found == bytes[min(max(start, 0), bytes.count)...].firstIndex(of: UInt8(ascii: ",")))
        }
    }

    /// The mark and the field names the changelog reads, at every offset of a value that holds
    /// each once, with one byte changed at every position of it.
    @Test("longer text is found where it is and nowhere else, with any one byte changed")
    func holdsLongerText() {
        let texts: [StaticString] = [#","kind":"message","#, #""expires_at":"#, #","collapse_key":"#, #"{"apns":"#]
        for text in texts {
            let textBytes = Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            let value = Array("xy".utf8) + textBytes + Array("z".utf8)
            for offset in -1...value.count {
                #expect(value.withUnsafeBytes { $0.holds(text, at: offset) } == (offset == 2), "\(text) at \(offset)")
            }
            for position in textBytes.indices {
                var changed = value
                changed[2 + position] ^= 0x01
                #expect(!changed.withUnsafeBytes { $0.holds(text, at: 2) }, "\(text) with byte \(position) changed")
            }
        }
    }

    @Test(
        "text is found only where all of it is, within the bytes",
        arguments: [
            ("abc", 0, true), ("abc", 1, false), ("bc", 1, true), ("bcd", 1, false), ("c", 2, true), ("c", 3, false),
            ("", 3, true), ("", 4, false), ("a", -1, false), ("abd", 0, false),
        ] as [(StaticString, Int, Bool)])
    func holds(text: StaticString, offset: Int, expected: Bool) {
        #expect(Array("abc".utf8).withUnsafeBytes { $0.holds(text, at: offset) } == expected)
    }
}
