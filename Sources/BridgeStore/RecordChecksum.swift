/// The 64-bit checksums a store keeps beside its records and its identity row, so that bytes
/// changed on disk after SQLite wrote them (a bad sector, a stray write) make the store a doubt
/// instead of state: SQLite checks its pages' structure, not the bytes of the values in them.
/// They detect damage, not a deliberate forgery.
///
/// The algorithm, which stores on disk depend on: a state starts at `0xcbf29ce484222325`
/// (FNV-1a's 64-bit offset basis). Each 64-bit word `w` is mixed in as
/// `state = (state ^ w) &* 0x100000001b3` (FNV's 64-bit prime), then `state ^= state >> 32`.
/// A field of bytes is mixed in as its length, then its bytes eight at a time as little-endian
/// words, the last padded with zeros; an absent field as the single word `0xffffffffffffffff`.
/// An integer is one word (its two's complement); an optional integer is `0` or `1`, then the
/// integer (`0` when absent). Every step is a bijection of the state for a given word, so a
/// change to any one word always changes the checksum. The result is the state's bit pattern.
enum RecordChecksum {
    /// The checksum of a record: its key, value, time (optional), collapse key and expiry
    /// (optional fields), in that order.
    static func of(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, time: Int64?,
        collapseKey: UnsafeRawBufferPointer?, expiresAt: UnsafeRawBufferPointer?
    ) -> Int64 {
        var state = State()
        state.mix(key)
        state.mix(value)
        state.mix(optional: time)
        state.mix(collapseKey)
        state.mix(expiresAt)
        return Int64(bitPattern: state.value)
    }

    /// The checksum of an identity row: its format, group, topic, partition and checkpoint, and
    /// its changelog's topic id (an optional field), in that order; texts as their UTF-8 bytes.
    static func of(
        format: Int64, group: String, topic: String, partition: Int64, checkpoint: Int64, topicID: String?
    ) -> Int64 {
        var state = State()
        state.mix(word: UInt64(bitPattern: format))
        state.mix(text: group)
        state.mix(text: topic)
        state.mix(word: UInt64(bitPattern: partition))
        state.mix(word: UInt64(bitPattern: checkpoint))
        if let topicID { state.mix(text: topicID) } else { state.mix(word: .max) }
        return Int64(bitPattern: state.value)
    }

    private struct State {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func mix(word: UInt64) {
            value = (value ^ word) &* 0x0000_0100_0000_01b3
            value ^= value &>> 32
        }

        mutating func mix(optional integer: Int64?) {
            mix(word: integer == nil ? 0 : 1)
            mix(word: UInt64(bitPattern: integer ?? 0))
        }

        mutating func mix(text: String) {
            var text = text
            text.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
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
