extension UnsafeRawBufferPointer {
    /// Whether the bytes at `offset` are those of `text`: a loop over the bytes, where the
    /// standard library's `elementsEqual` and `starts(with:)` walk iterators several times slower.
    func holds(_ text: StaticString, at offset: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset >= 0, self.count - offset >= count else { return false }
        let expected = text.utf8Start
        for index in 0..<count where self[offset + index] != expected[index] { return false }
        return true
    }

    /// The last index of `byte` below `end` and not below `start`, searched eight bytes at a time.
    func lastIndex(of byte: UInt8, before end: Int, notBefore start: Int) -> Int? {
        let start = Swift.max(start, 0)
        var end = Swift.min(end, count)
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        while end - start >= 8 {
            let word = UInt64(littleEndian: loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)) ^ pattern
            // The high bit of exactly the bytes that are zero: no carry crosses a byte.
            let zeros = ~(((word & lows) &+ lows) | word | lows)
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
