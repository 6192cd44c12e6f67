/// A message accepted for one device: what the queue needs to apply its rules, and the APNs
/// headers and payload its inbox record carries when the message is dispatched.
///
/// A message is one allocation, so that a device's queue costs a pointer and an allocation per
/// waiting message: a fixed header (send time, expiry, flags and byte counts) followed by the
/// bytes of the id, the collapse key and the `apns` object. Byte counts are 32 bits: no record
/// holds 4 GiB (a longer part would be cut to its count, never written past it).
public struct QueuedMessage: @unchecked Sendable {
    // Sendable: the storage is never changed once shared; a change copies it first unless this
    // value is its only owner (copy on write, as Array does).
    private var storage: ManagedBuffer<Header, UInt8>

    /// What precedes the bytes: fixed-size fields, and the byte counts of the variable ones.
    private struct Header {
        var sentAt: Int64
        var expiresAt: Int64
        var idCount: UInt32
        var collapseKeyCount: UInt32
        var apnsCount: UInt32
        var hasExpiry: Bool
        var hasCollapseKey: Bool

        var byteCount: Int { Int(idCount) + Int(collapseKeyCount) + Int(apnsCount) }
    }

    /// Creates a message whose `apns` object is the bytes of `apns`.
    public init(id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, apns: UnsafeRawBufferPointer) {
        var id = id
        var collapseKey = collapseKey
        let header = Header(
            sentAt: sentAt, expiresAt: expiresAt ?? 0,
            idCount: UInt32(truncatingIfNeeded: id.utf8.count),
            collapseKeyCount: UInt32(truncatingIfNeeded: collapseKey?.utf8.count ?? 0),
            apnsCount: UInt32(truncatingIfNeeded: apns.count),
            hasExpiry: expiresAt != nil, hasCollapseKey: collapseKey != nil
        )
        storage = .create(minimumCapacity: header.byteCount) { _ in header }
        storage.withUnsafeMutablePointerToElements { start in
            // Each part is copied as far as its count in the header says: never past the storage.
            var next = UnsafeMutableRawPointer(start)
            id.withUTF8 { next = Self.append(UnsafeRawBufferPointer($0), upTo: header.idCount, at: next) }
            collapseKey?.withUTF8 {
                next = Self.append(UnsafeRawBufferPointer($0), upTo: header.collapseKeyCount, at: next)
            }
            _ = Self.append(apns, upTo: header.apnsCount, at: next)
        }
    }

    /// Creates a message whose `apns` object is `apns`.
    public init(id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, apns: [UInt8]) {
        self = apns.withUnsafeBytes {
            QueuedMessage(id: id, collapseKey: collapseKey, sentAt: sentAt, expiresAt: expiresAt, apns: $0)
        }
    }

    /// The message's id.
    public var id: String { withParts { id, _, _ in String(decoding: id, as: UTF8.self) } }

    /// Its collapse key, if it has one (`apns-collapse-id`).
    public var collapseKey: String? {
        storage.header.hasCollapseKey ? withParts { _, key, _ in String(decoding: key, as: UTF8.self) } : nil
    }

    /// Event time of its send request, in milliseconds.
    public var sentAt: Int64 { storage.header.sentAt }

    /// When it expires, in milliseconds; nil for the rules' default time to live. Equal to
    /// `sentAt` for a time to live of 0: deliver now or never.
    public var expiresAt: Int64? {
        get { storage.header.hasExpiry ? storage.header.expiresAt : nil }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = Self.duplicate(storage) }
            storage.header.expiresAt = newValue ?? 0
            storage.header.hasExpiry = newValue != nil
        }
    }

    /// Calls `body` with the `apns` object of its inbox record, as the translator wrote it
    /// (`{"headers":{...},"payload":{...}}`, with `channel` or `live_activity_token` where the
    /// message has them). The rest of the record (kind, id, send time and token) is written
    /// around it on dispatch: a waiting message does not keep a copy of its device's token.
    public func withAPNs<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withParts { _, _, apns in try body(apns) }
    }

    /// Calls `body` with the bytes of its id.
    public func withID<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withParts { id, _, _ in try body(id) }
    }

    /// Whether its id is `id`, compared as bytes.
    public func hasID(_ id: String) -> Bool { withParts { bytes, _, _ in bytes.elementsEqual(id.utf8) } }

    /// One of 64 bits, chosen by a hash of the id's bytes (FNV-1a, the same in every process):
    /// equal ids have equal bits, so a set of bits tells which ids cannot be among some messages.
    var idBit: UInt64 {
        withParts { id, _, _ in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in id { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return 1 << (hash >> 58)
        }
    }

    /// Whether it has a collapse key.
    public var isCollapsible: Bool { storage.header.hasCollapseKey }

    /// Whether its collapse key is `key`, compared as bytes.
    public func hasCollapseKey(_ key: String) -> Bool {
        storage.header.hasCollapseKey && withParts { _, bytes, _ in bytes.elementsEqual(key.utf8) }
    }

    func expiry(_ rules: QueueRules) -> Int64 { expiresAt ?? sentAt.saturatingAdd(rules.defaultTimeToLive) }

    /// Calls `body` with the bytes of the id, the collapse key and the `apns` object.
    private func withParts<R>(
        _ body: (_ id: UnsafeRawBufferPointer, _ collapseKey: UnsafeRawBufferPointer, _ apns: UnsafeRawBufferPointer)
            throws -> R
    ) rethrows -> R {
        try withAllBytes { header, bytes in
            let idEnd = Int(header.idCount)
            let keyEnd = idEnd + Int(header.collapseKeyCount)
            return try body(
                UnsafeRawBufferPointer(rebasing: bytes[..<idEnd]),
                UnsafeRawBufferPointer(rebasing: bytes[idEnd..<keyEnd]),
                UnsafeRawBufferPointer(rebasing: bytes[keyEnd...])
            )
        }
    }

    /// Calls `body` with the header and every byte after it.
    private func withAllBytes<R>(_ body: (Header, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { header, start in
            try body(header.pointee, UnsafeRawBufferPointer(start: start, count: header.pointee.byteCount))
        }
    }

    private static func append(
        _ part: UnsafeRawBufferPointer, upTo count: UInt32, at destination: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        let kept = UnsafeRawBufferPointer(rebasing: part.prefix(Int(count)))
        if let source = kept.baseAddress { destination.copyMemory(from: source, byteCount: kept.count) }
        return destination + kept.count
    }

    private static func duplicate(_ storage: ManagedBuffer<Header, UInt8>) -> ManagedBuffer<Header, UInt8> {
        storage.withUnsafeMutablePointers { header, start in
            let copy = ManagedBuffer<Header, UInt8>.create(minimumCapacity: header.pointee.byteCount) { _ in
                header.pointee
            }
            copy.withUnsafeMutablePointerToElements { $0.initialize(from: start, count: header.pointee.byteCount) }
            return copy
        }
    }
}

extension QueuedMessage: Hashable {
    /// Messages are equal when every field is, byte for byte.
    public static func == (lhs: QueuedMessage, rhs: QueuedMessage) -> Bool {
        lhs.withAllBytes { leftHeader, left in
            rhs.withAllBytes { rightHeader, right in
                leftHeader.sentAt == rightHeader.sentAt && lhs.expiresAt == rhs.expiresAt
                    && leftHeader.hasCollapseKey == rightHeader.hasCollapseKey
                    && leftHeader.idCount == rightHeader.idCount
                    && leftHeader.collapseKeyCount == rightHeader.collapseKeyCount
                    && left.elementsEqual(right)
            }
        }
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(expiresAt)
        withAllBytes { header, bytes in
            hasher.combine(header.sentAt)
            hasher.combine(header.hasCollapseKey)
            hasher.combine(header.idCount)
            hasher.combine(header.collapseKeyCount)
            hasher.combine(bytes: bytes)
        }
    }
}

extension QueuedMessage: CustomStringConvertible {
    /// The message's fields, and the size of its `apns` object.
    public var description: String {
        "QueuedMessage(id: \(id), collapseKey: \(collapseKey ?? "nil"), sentAt: \(sentAt), expiresAt: \(expiresAt.map(String.init) ?? "nil"), apns: \(withAPNs(\.count)) bytes)"
    }
}
