/// A 64-bit checksum of a stored record's columns, kept beside them, so that bytes changed on
/// disk after SQLite wrote them (a bad sector, a stray write) make the store a doubt instead of
/// state: SQLite checks its pages' structure, not the bytes of the values in them.
///
/// Each field is mixed in as its length (or a mark for none) and then its bytes, eight at a
/// time, little-endian, the last word padded with zeros. Every step is a bijection of the
/// running state for a given input word, so a change to any one word of one record always
/// changes its checksum. It detects damage, not a deliberate forgery.
enum RecordChecksum {
    /// The checksum of a record's key, value, time and kept headers.
    static func of(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, time: Int64?,
        collapseKey: UnsafeRawBufferPointer?, expiresAt: UnsafeRawBufferPointer?
    ) -> Int64 {
        var state = State()
        state.mix(key)
        state.mix(value)
        state.mix(word: time == nil ? 0 : 1)
        state.mix(word: UInt64(bitPattern: time ?? 0))
        state.mix(collapseKey)
        state.mix(expiresAt)
        return Int64(bitPattern: state.value)
    }

    private struct State {
        // FNV-1a's 64-bit offset basis and prime, applied to words rather than bytes.
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func mix(word: UInt64) {
            value = (value ^ word) &* 0x0000_0100_0000_01b3
            value ^= value &>> 32
        }

        mutating func mix(_ bytes: UnsafeRawBufferPointer?) {
            guard let bytes else { return mix(word: .max) }
            mix(word: UInt64(bytes.count))
            var offset = 0
            while offset + 8 <= bytes.count {
                mix(word: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            guard offset < bytes.count else { return }
            var last: UInt64 = 0
            for index in offset..<bytes.count { last |= UInt64(bytes[index]) &<< (8 * UInt64(index - offset)) }
            mix(word: last)
        }
    }
}
