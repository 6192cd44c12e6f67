import PropertyBased
import Testing

@testable import FCMTranslation

/// The eight-bytes-at-a-time scan for the plain part of string text agrees with a byte-by-byte
/// one, wherever the first special byte is.
@Suite("JSON string scan")
struct JSONScanTests {
    static func naive(_ bytes: [UInt8], allowingNonASCII: Bool) -> Int {
        bytes.firstIndex {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || (!allowingNonASCII && $0 >= 0x80)
        }
            ?? bytes.count
    }

    @Test("special bytes at every position of a word", arguments: [0x00, 0x1F, 0x22, 0x5C, 0x80, 0xFF] as [UInt8])
    func everyPosition(special: UInt8) {
        for length in 0...20 {
            for position in 0..<max(length, 1) where position < length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = special
                for allowing in [false, true] {
                    let scanned = bytes.withUnsafeBytes { JSONScan.plainPrefix($0, allowingNonASCII: allowing) }
                    #expect(
                        scanned == Self.naive(bytes, allowingNonASCII: allowing),
                        "\(bytes) allowing non-ASCII: \(allowing)")
                }
            }
        }
    }

    @Test("random bytes")
    func randomBytes() async {
        await propertyCheck(count: 2000, input: Gen.uint8(in: 0...255).array(of: 0...40), Gen.bool) { bytes, allowing in
            let scanned = bytes.withUnsafeBytes { JSONScan.plainPrefix($0, allowingNonASCII: allowing) }
            #expect(scanned == Self.naive(bytes, allowingNonASCII: allowing))
        }
    }

    @Test("random bytes, followed by the parser's eight NULs, scanned without a count")
    func randomTerminatedBytes() async {
        await propertyCheck(count: 2000, input: Gen.uint8(in: 0...255).array(of: 0...40), Gen.bool) { bytes, allowing in
            let padded = bytes + [UInt8](repeating: 0, count: JSONTapeBuilder.sentinelCount)
            let scanned = padded.withUnsafeBytes { raw in
                raw.baseAddress.map { JSONScan.plainPrefix(terminated: $0, allowingNonASCII: allowing) }
            }
            #expect(scanned == Self.naive(bytes, allowingNonASCII: allowing))
        }
    }
}
