import FCMTranslation

extension UnsafeRawBufferPointer {
    /// Whether the bytes at `offset` are those of `text`, compared as ``ByteSpan``s (eight bytes at
    /// a time), where the standard library's `elementsEqual` and `starts(with:)` walk iterators
    /// many times slower.
    func holds(_ text: StaticString, at offset: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset >= 0, self.count - offset >= count else { return false }
        guard let base = baseAddress else { return count == 0 }
        return ByteSpan(start: base + offset, count: count, isPlain: true) == ByteSpan(text)
    }

    /// The first index of `byte` at or after `start`, searched eight bytes at a time.
    func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        var position = Swift.max(start, 0)
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        while count - position >= 8 {
            if let found = Self.firstZeroByte(
                in: UInt64(littleEndian: loadUnaligned(fromByteOffset: position, as: UInt64.self)) ^ pattern)
            {
                return position + found
            }
            position += 8
        }
        while position < count {
            if self[position] == byte { return position }
            position += 1
        }
        return nil
    }

    /// The index of the lowest zero byte of `word` in memory order (little-endian), if any.
    private static func firstZeroByte(in word: UInt64) -> Int? {
        let zeros = zeroBytes(word)
        return zeros == 0 ? nil : zeros.trailingZeroBitCount / 8
    }

    /// The high bit of exactly the bytes of `word` that are zero: no carry crosses a byte.
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & lows) &+ lows) | word | lows)
    }

    /// The last index of `byte` below `end` and not below `start`, searched eight bytes at a time.
    func lastIndex(of byte: UInt8, before end: Int, notBefore start: Int) -> Int? {
        let start = Swift.max(start, 0)
        var end = Swift.min(end, count)
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        while end - start >= 8 {
            let zeros = Self.zeroBytes(
                UInt64(littleEndian: loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)) ^ pattern)
            if zeros != 0 { return end - 8 + (63 - zeros.leadingZeroBitCount) / 8 }
            end -= 8
        }
        while end > start {
            end -= 1
            if self[end] == byte { return end }
        }
        return nil
    }
}
