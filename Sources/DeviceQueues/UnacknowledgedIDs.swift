/// The ids a device was sent and has not acknowledged, oldest first: up to the acknowledgement
/// window (a thousand) per device, so for a fleet the largest part of its device state, kept
/// compact.
///
/// The ids are bytes in one buffer, each after its length. A copy of a topic send has the
/// send's id, `/` and the device's hash, the same for every copy this device gets: that last part
/// is kept once, and each copy's entry holds only the send's id (about 10 bytes instead of a
/// 25-byte string of its own).
public struct UnacknowledgedIDs: Sendable, Hashable {
    /// The entries: each a LEB128 header (the stored length, shifted left once, its low bit set
    /// when the entry ends with `sharedSuffix`) and the stored bytes.
    private var entries: [UInt8] = []
    /// What ends every copy's id for this device (`/` and the device's hash), from its first copy.
    private var sharedSuffix: [UInt8] = []
    /// How many ids are held.
    public private(set) var count = 0

    /// None.
    public init() {}

    /// Whether none is held.
    public var isEmpty: Bool { count == 0 }

    /// Every id, oldest first.
    public var all: [String] {
        var ids: [String] = []
        ids.reserveCapacity(count)
        var position = 0
        while let entry = entry(at: position) {
            ids.append(text(of: entry))
            position = entry.end
        }
        return ids
    }

    /// Adds `id` as the newest.
    public mutating func append(_ id: String) {
        var bytes = Array(id.utf8)
        var shared = false
        if let slash = bytes.lastIndex(of: UInt8(ascii: "/")) {
            let suffix = bytes[slash...]
            if sharedSuffix.isEmpty { sharedSuffix = Array(suffix) }
            if suffix.elementsEqual(sharedSuffix) {
                bytes.removeSubrange(slash...)
                shared = true
            }
        }
        var header = UInt64(bytes.count) << 1 | (shared ? 1 : 0)
        repeat {
            let low = UInt8(truncatingIfNeeded: header & 0x7F)
            header >>= 7
            entries.append(header == 0 ? low : low | 0x80)
        } while header != 0
        entries.append(contentsOf: bytes)
        count += 1
    }

    /// The ids as they are held, for a store that keeps a device whole: the entries, each a
    /// LEB128 header and its bytes, and the suffix shared by the entries that say so.
    public var stored: (entries: [UInt8], sharedSuffix: [UInt8]) { (entries, sharedSuffix) }

    /// The ids of what ``stored`` gave; nil when `entries` does not read as entries to its end.
    public init?(entries: [UInt8], sharedSuffix: [UInt8]) {
        self.entries = entries
        self.sharedSuffix = sharedSuffix
        var position = 0
        while position < entries.count {
            guard let entry = entry(at: position) else { return nil }
            position = entry.end
            count += 1
        }
        if count == 0 { self = UnacknowledgedIDs() }
    }

    /// Removes and returns the oldest id.
    public mutating func removeFirst() -> String? {
        guard let entry = entry(at: 0) else { return nil }
        let id = text(of: entry)
        remove(entry)
        return id
    }

    /// Removes `id`; false when it is not held.
    public mutating func remove(_ id: String) -> Bool {
        guard let entry = firstEntry(holding: id) else { return false }
        remove(entry)
        return true
    }

    /// One entry: where its stored bytes are, and whether the shared suffix follows them.
    private struct Entry {
        var start: Int
        var bytes: Range<Int>
        var shared: Bool
        var end: Int { bytes.upperBound }
    }

    /// The entry at `position`, or nil at the end (or past a damaged header, which `append` never
    /// writes).
    private func entry(at position: Int) -> Entry? {
        entries.withUnsafeBufferPointer { Self.entry(at: position, in: $0) }
    }

    /// The entry at `position` of `entries`, as ``entry(at:)`` reads it.
    private static func entry(at position: Int, in entries: UnsafeBufferPointer<UInt8>) -> Entry? {
        var header: UInt64 = 0
        var shift: UInt64 = 0
        var index = position
        while index < entries.count, shift < 63 {
            let byte = entries[index]
            header |= UInt64(byte & 0x7F) << shift
            index += 1
            if byte & 0x80 == 0 {
                let (length, shared) = (header >> 1, header & 1 == 1)
                guard length <= UInt64(entries.count - index) else { return nil }
                return Entry(start: position, bytes: index..<(index + Int(length)), shared: shared)
            }
            shift += 7
        }
        return nil
    }

    /// The first entry that holds `id`. A replay asks this of every id it adds, most of them not
    /// held, so the scan compares each entry's length, then its bytes from the last, all in
    /// place: ids of one device differ in their ends (offsets and token indexes) and often share
    /// a start. An entry with the shared suffix holds `id` when it holds `id` without that suffix.
    private func firstEntry(holding id: String) -> Entry? {
        var id = id
        return id.withUTF8 { id in
            let idEndsShared =
                id.count >= sharedSuffix.count && id[(id.count - sharedSuffix.count)...].elementsEqual(sharedSuffix)
            let sharedLength = idEndsShared ? id.count - sharedSuffix.count : -1
            return entries.withUnsafeBufferPointer { entries in
                var position = 0
                while let entry = Self.entry(at: position, in: entries) {
                    let length = entry.shared ? sharedLength : id.count
                    if entry.bytes.count == length, Self.equalFromTheEnd(entries[entry.bytes], id[..<length]) {
                        return entry
                    }
                    position = entry.end
                }
                return nil
            }
        }
    }

    private func text(of entry: Entry) -> String {
        String(decoding: entries[entry.bytes] + (entry.shared ? sharedSuffix : []), as: UTF8.self)
    }

    /// Whether two byte runs of the same length are equal, compared from their last bytes.
    private static func equalFromTheEnd(
        _ stored: Slice<UnsafeBufferPointer<UInt8>>, _ id: Slice<UnsafeBufferPointer<UInt8>>
    )
        -> Bool
    {
        assert(stored.count == id.count)
        var (storedIndex, idIndex) = (stored.endIndex, id.endIndex)
        while storedIndex > stored.startIndex {
            storedIndex -= 1
            idIndex -= 1
            guard stored[storedIndex] == id[idIndex] else { return false }
        }
        return true
    }

    /// Equal when they hold the same ids in the same order, however they are stored.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.all == rhs.all
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(all)
    }

    private mutating func remove(_ entry: Entry) {
        entries.removeSubrange(entry.start..<entry.end)
        count -= 1
        if count == 0 {
            entries = []
            sharedSuffix = []
        }
    }
}
