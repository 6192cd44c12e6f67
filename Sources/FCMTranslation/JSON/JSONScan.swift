/// Finding the plain part of JSON string text eight bytes at a time.
enum JSONScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The length of the longest prefix with no quote, backslash or control character (and no
    /// byte >= 0x80 unless `allowingNonASCII`): the bytes JSON text can hold as they are.
    @inline(__always)
    static func plainPrefix(_ bytes: UnsafeRawBufferPointer, allowingNonASCII: Bool) -> Int {
        var position = 0
        let count = bytes.count
        if let base = bytes.baseAddress {
            while count - position >= 8 {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let special = specialBytes(word, allowingNonASCII: allowingNonASCII)
                // The lowest flagged byte is exact (only bytes above a true one can be flagged wrongly).
                if special != 0 { return position + special.trailingZeroBitCount / 8 }
                position += 8
            }
        }
        while position < count, isPlain(bytes[position], allowingNonASCII: allowingNonASCII) { position += 1 }
        return position
    }

    @inline(__always)
    static func isPlain(_ byte: UInt8, allowingNonASCII: Bool) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && (allowingNonASCII || byte < 0x80)
    }

    /// The high bit of each byte of `word` that is < 0x20, a quote or a backslash (or >= 0x80
    /// when not allowed), and maybe of bytes above the first such one; 0 when there is none.
    @inline(__always)
    private static func specialBytes(_ word: UInt64, allowingNonASCII: Bool) -> UInt64 {
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        var special = control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        if !allowingNonASCII { special |= word }
        return special & highs
    }
}
