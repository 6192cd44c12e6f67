import DeviceQueues
import FCMTranslation

/// The changelog topic's records: one per state change, keyed so that compaction keeps exactly
/// the live state. Each key holds one thing, and the latest record for it wins:
///
/// - `d <token>`: the device's status (`{"online":..,"last_activity":..,"notice":{..}}`), or a
///   tombstone once the device is forgotten;
/// - `m <message id> <token>`: a waiting message (value: its `apns` object, expiry and collapse
///   key, see ``ChangelogMessageValue``; headers `collapse-key`, `expires-at`, for workers of
///   0.10; timestamp: its send time), or a tombstone once it left;
/// - `a <message id> <token>`: a dispatched message awaiting `ack` (empty value), or a tombstone;
/// - `s`, `t`, `c`, `j`, `k`, `e` and `q`: topic state and fan-outs (see ``TopicChange``).
///
/// ``ChangelogKind`` declares the letters; ``decode(_:header:)`` reads any of them.
///
/// Each names the input it came from in its `input` header (``ChangelogInput``).
///
/// Message ids have no spaces, so the token is everything after the second space.
public struct ChangelogCodec: Sendable {
    /// The changelog topic.
    public let topic: String

    /// A codec for the changelog topic `topic`.
    public init(topic: String) {
        self.topic = topic
    }

    /// Starts a changelog record in state partition `partition`, naming in its `input` header
    /// the input whose outputs are being written (``OutputRecords/input``).
    func begin(partition: Int32, timestamp: Int64?, to outputs: inout OutputRecords) {
        outputs.begin(.changelog, partition: partition, timestamp: timestamp)
        outputs.inputHeader(ChangelogInput.headerName)
    }

    /// Writes the changelog record of `change` to `token`'s device in state partition `partition`.
    func record(_ change: StateChange, token: String, partition: Int32, to outputs: inout OutputRecords) {
        switch change {
        case .device(let status):
            begin(partition: partition, timestamp: nil, to: &outputs)
            outputs.key { Self.writeKey(.device, nil, token, to: &$0) }
            outputs.value { DeviceStatusValue.write(status, to: &$0) }
        case .enqueued(let message):
            begin(partition: partition, timestamp: message.sentAt, to: &outputs)
            outputs.key { Self.writeKey(.waitingMessage, message.id, token, to: &$0) }
            let collapseKey = message.collapseKey
            outputs.value { ChangelogMessageValue.write(message, collapseKey: collapseKey, to: &$0) }
            if let collapseKey { outputs.header("collapse-key", text: collapseKey) }
            if let expiresAt = message.expiresAt { outputs.header("expires-at", integer: expiresAt) }
        case .dequeued(let id):
            begin(partition: partition, timestamp: nil, to: &outputs)
            outputs.key { Self.writeKey(.waitingMessage, id, token, to: &$0) }
        case .awaitingAcknowledgement(let id):
            begin(partition: partition, timestamp: nil, to: &outputs)
            outputs.key { Self.writeKey(.awaitingAcknowledgement, id, token, to: &$0) }
            outputs.value { _ in }
        case .acknowledgementSettled(let id):
            begin(partition: partition, timestamp: nil, to: &outputs)
            outputs.key { Self.writeKey(.awaitingAcknowledgement, id, token, to: &$0) }
        case .forgotten:
            begin(partition: partition, timestamp: nil, to: &outputs)
            outputs.key { Self.writeKey(.device, nil, token, to: &$0) }
        }
    }

    /// The change a changelog record holds. The key is read as bytes (a token may start with
    /// anything, a combining mark included); errors name the record's place, never its token,
    /// and a kind this version does not know is ``MalformedRecord/isUnknownKind``. `header`
    /// gives the value of the record's header of that name: it is asked only for a waiting
    /// message whose value does not carry its fields (written by 0.10).
    public func decode(
        _ record: ChangelogRecordView, header: (_ name: String) -> UnsafeRawBufferPointer?
    ) throws(MalformedRecord) -> ChangelogChange {
        guard let key = record.key, let (kind, rest) = Self.kindAndRest(ofKey: key) else {
            throw MalformedRecord(
                description: "changelog record at \(record.position) has no key of the form \"<kind> ...\"")
        }
        guard let kind else {
            // A letter a newer version could have given a kind stops the restore; another byte is corrupt.
            let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(key[0])
            throw MalformedRecord(
                description:
                    "changelog record at \(record.position) is of a kind this version does not know (key byte \(key[0]))",
                isUnknownKind: isLetter)
        }
        if kind.isTopicState { return .topic(try topicChange(kind, rest: rest, of: record)) }
        let (token, change) = try deviceChange(kind, rest: rest, of: record, header: header)
        return .device(token: token, change)
    }

    /// The first bytes of the keys of records that change a device's queue, ascending: the
    /// records a store of devices holds, and a replay of topic state passes over.
    public static let deviceKeyKinds: [UInt8] = ChangelogKind.allCases.filter { !$0.isTopicState }.map(\.rawValue)
        .sorted()

    /// The first bytes of the keys of records whose state a partition's device rows hold, ascending:
    /// the devices' and the topics' members'. A restart served from the rows replays the others.
    public static let rowKeyKinds: [UInt8] = (deviceKeyKinds + [ChangelogKind.member.rawValue]).sorted()

    /// The token of the device whose queue a changelog record of key `key` changes and, for a
    /// waiting message's record, the message's id; nil for topic state and for a key that is not
    /// of the form ``decode(_:header:)`` reads. Reads the key only: for the devices and messages
    /// a batch changed, from the records it wrote.
    public static func deviceRow(ofKey key: UnsafeRawBufferPointer) -> (token: String, messageID: String?)? {
        guard let (kind, rest) = kindAndRest(ofKey: key), let kind, !kind.isTopicState else { return nil }
        if kind == .device { return (String(decoding: rest, as: UTF8.self), nil) }
        guard let (id, token) = idAndToken(in: rest) else { return nil }
        let messageID = kind == .waitingMessage ? String(decoding: id, as: UTF8.self) : nil
        return (String(decoding: token, as: UTF8.self), messageID)
    }

    /// The topic and token of a topic's member that a changelog record of key `key` adds or
    /// removes (its value says which); nil for every other kind and for a key not of the form
    /// `t <topic> <token>`. Reads the key only, as ``deviceRow(ofKey:)`` does.
    public static func member(ofKey key: UnsafeRawBufferPointer) -> (topic: String, token: String)? {
        guard let (kind, rest) = kindAndRest(ofKey: key), kind == .member,
            let (topic, token) = idAndToken(in: rest)
        else { return nil }
        return (String(decoding: topic, as: UTF8.self), String(decoding: token, as: UTF8.self))
    }

    /// The kind a key of the form `<kind> <rest>` names (nil for a byte that names none) and its
    /// rest; nil for a key of another form.
    private static func kindAndRest(ofKey key: UnsafeRawBufferPointer) -> (ChangelogKind?, UnsafeRawBufferPointer)? {
        guard key.count > 2, key[1] == UInt8(ascii: " ") else { return nil }
        return (ChangelogKind(rawValue: key[0]), UnsafeRawBufferPointer(rebasing: key[2...]))
    }

    /// The message id and token of a device key's rest, `<id> <token>`; nil without a space.
    private static func idAndToken(in rest: UnsafeRawBufferPointer) -> (
        id: UnsafeRawBufferPointer, token: UnsafeRawBufferPointer
    )? {
        guard let idEnd = rest.firstIndex(of: UInt8(ascii: " "), from: 0) else { return nil }
        return (
            UnsafeRawBufferPointer(rebasing: rest[..<idEnd]), UnsafeRawBufferPointer(rebasing: rest[(idEnd + 1)...])
        )
    }

    /// ``decode(_:header:)`` of a record held whole (tests, the fuzzer): its key, value and two
    /// headers are copied into one buffer and lent from there.
    public func decode(_ record: some InputRecord) throws(MalformedRecord) -> ChangelogChange {
        let parts = [
            record.key.map { Array($0.readableBytesView) }, record.value.map { Array($0.readableBytesView) },
            record.header("collapse-key").map { Array($0.utf8) }, record.header("expires-at").map { Array($0.utf8) },
        ]
        return try parts.flatMap { $0 ?? [] }.withUnsafeBytes { bytes in
            var start = 0
            let lent = parts.map { part -> UnsafeRawBufferPointer? in
                guard let part else { return nil }
                defer { start += part.count }
                return UnsafeRawBufferPointer(rebasing: bytes[start..<start + part.count])
            }
            return Result { () throws(MalformedRecord) in
                try decode(
                    ChangelogRecordView(
                        topic: record.topic, partition: record.partition, offset: record.offset, key: lent[0],
                        value: lent[1],
                        createTime: record.createTime
                    ),
                    header: { name in name == "collapse-key" ? lent[2] : name == "expires-at" ? lent[3] : nil }
                )
            }
        }.get()
    }

    /// The device and change of a record of a device's queue, whose key after its kind is `rest`.
    private func deviceChange(
        _ kind: ChangelogKind, rest: UnsafeRawBufferPointer, of record: ChangelogRecordView,
        header: (_ name: String) -> UnsafeRawBufferPointer?
    ) throws(MalformedRecord) -> (token: String, change: StateChange) {
        if kind == .device {
            guard let value = record.value else { return (String(decoding: rest, as: UTF8.self), .forgotten) }
            return (String(decoding: rest, as: UTF8.self), .device(try status(in: value, at: record)))
        }
        guard let (idBytes, tokenBytes) = Self.idAndToken(in: rest) else {
            throw MalformedRecord(description: "changelog key at \(record.position) has no message id")
        }
        let id = String(decoding: idBytes, as: UTF8.self)
        let token = String(decoding: tokenBytes, as: UTF8.self)
        if kind == .awaitingAcknowledgement {
            let change: StateChange =
                record.value == nil ? .acknowledgementSettled(messageID: id) : .awaitingAcknowledgement(messageID: id)
            return (token, change)
        }
        guard let value = record.value else { return (token, .dequeued(messageID: id)) }
        let stored = ChangelogMessageValue(value)
        let fields =
            stored.fields
            ?? ChangelogMessageValue.Fields(
                expiresAt: header("expires-at").flatMap {
                    DecimalInteger.parse($0.assumingMemoryBound(to: UInt8.self))
                }.map(Int64.init),
                collapseKey: header("collapse-key").map { String(decoding: $0, as: UTF8.self) }
            )
        let message = QueuedMessage(
            id: id, collapseKey: fields.collapseKey, sentAt: record.createTime ?? 0, expiresAt: fields.expiresAt,
            apns: UnsafeRawBufferPointer(rebasing: value[stored.apns])
        )
        return (token, .enqueued(message))
    }

    private func status(in value: UnsafeRawBufferPointer, at record: ChangelogRecordView) throws(MalformedRecord)
        -> DeviceStatus
    {
        guard let status = DeviceStatusValue.read(value) else {
            throw MalformedRecord(description: "changelog device status at \(record.position) is not readable")
        }
        return status
    }

    /// `<kind> <id> <token>`, or `<kind> <token>` without an id.
    private static func writeKey(_ kind: ChangelogKind, _ id: String?, _ token: String, to key: inout ByteWriter) {
        key.append(kind.rawValue)
        key.append(UInt8(ascii: " "))
        if let id {
            key.append(utf8: id)
            key.append(UInt8(ascii: " "))
        }
        key.append(utf8: token)
    }
}
