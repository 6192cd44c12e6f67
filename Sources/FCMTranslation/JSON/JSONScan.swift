/// Finding the plain part of JSON string text eight bytes at a time.
package enum JSONScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The length of the longest prefix with no quote, backslash or control character (and no
    /// byte >= 0x80 unless `allowingNonASCII`): the bytes JSON text can hold as they are.
    @inline(__always)
    package static func plainPrefix(_ bytes: UnsafeRawBufferPointer, allowingNonASCII: Bool) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        var position = 0
        while count - position >= 8 {
            let special = specialBytes(load(base, at: position), allowingNonASCII: allowingNonASCII)
            // The lowest flagged byte is exact (only bytes above a true one can be flagged wrongly).
            if special != 0 { return position + special.trailingZeroBitCount / 8 }
            position += 8
        }
        guard position < count else { return count }
        if count >= 8 {
            // The last eight bytes: those before `position` among them are plain, so the lowest
            // flagged one is the first special byte of the rest.
            let special = specialBytes(load(base, at: count - 8), allowingNonASCII: allowingNonASCII)
            return special == 0 ? count : count - 8 + special.trailingZeroBitCount / 8
        }
        // Fewer than eight bytes in all, padded with spaces (plain).
        var word = UInt64(0x2020_2020_2020_2020).littleEndian
        withUnsafeMutableBytes(of: &word) { $0.baseAddress?.copyMemory(from: base, byteCount: count) }
        let special = specialBytes(UInt64(littleEndian: word), allowingNonASCII: allowingNonASCII)
        return special == 0 ? count : special.trailingZeroBitCount / 8
    }

    @inline(__always)
    private static func load(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The length of the longest plain prefix (as ``plainPrefix(_:allowingNonASCII:)``) of text
    /// that is followed by a byte that is not plain, such as a NUL: whole words are read, so the
    /// 7 bytes after that byte must be readable too. No tail loop, for short strings.
    @inline(__always)
    static func plainPrefix(terminated start: UnsafeRawPointer, allowingNonASCII: Bool) -> Int {
        var position = 0
        while true {
            let special = specialBytes(load(start, at: position), allowingNonASCII: allowingNonASCII)
            if special != 0 { return position + special.trailingZeroBitCount / 8 }
            position += 8
        }
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
