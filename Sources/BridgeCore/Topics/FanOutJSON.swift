import FCMTranslation

/// The JSON forms of a fan-out's state in the changelog and of its steps on the repartition
/// topic, members in name order. A value that does not read whole gives nil (the caller's
/// malformed record), never a trap.
enum FanOutJSON {
    /// A walk's value: its JSON, a newline, and the send's `apns` object (JSON written here holds
    /// no raw newline).
    static func write(_ walk: FanOutWalk, to output: inout ByteWriter) {
        var members = fields(of: walk.message)
        members["ended"] = .array(walk.ended.map { $0.map(partitionChunks) ?? .null })
        JSONValue.object(members).write(to: &output)
        output.append(UInt8(ascii: "\n"))
        output.append(walk.message.apns)
    }

    /// The walk of topic `topicIndex` of send `sendID` a changelog value holds.
    static func walk(sendID: String, topicIndex: Int, value: UnsafeRawBufferPointer) -> FanOutWalk? {
        guard let newline = value.firstIndex(of: UInt8(ascii: "\n")),
            let json = try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: value[..<newline])),
            let message = message(sendID: sendID, json, apns: Array(value[(newline + 1)...])),
            case .array(let endedValues)? = json["ended"],
            (1...FanOutWalk.maximumSegments).contains(endedValues.count)
        else { return nil }
        var ended: [[Int32: Int]?] = []
        for value in endedValues {
            if case .null = value {
                ended.append(nil)
            } else {
                guard let chunks = partitionChunks(value) else { return nil }
                ended.append(chunks)
            }
        }
        return FanOutWalk(message: message, topicIndex: topicIndex, ended: ended)
    }

    static func write(_ step: FanOutWalk.Step, to output: inout ByteWriter) {
        JSONValue.object([
            "after": step.cursor.after.map(JSONValue.string) ?? .null,
            "bucket": .integer(Int(step.cursor.bucket)),
            "chunk": .integer(step.chunk),
            "last_sent": partitionChunks(step.lastSent),
            "segment": .integer(step.segment),
        ]).write(to: &output)
    }

    static func step(_ bytes: [UInt8]) -> FanOutWalk.Step? {
        guard let json = try? JSONParser.parse(bytes), let segment = json["segment"].flatMap(count),
            let chunk = json["chunk"].flatMap(count),
            let bucket = json["bucket"].flatMap(count).flatMap(UInt16.init(exactly:)),
            let lastSent = json["last_sent"].flatMap(partitionChunks)
        else { return nil }
        return FanOutWalk.Step(
            segment: segment, chunk: chunk,
            cursor: TopicMembers.Cursor(bucket: bucket, after: json["after"]?.stringValue), lastSent: lastSent)
    }

    /// `[[segment, partition, chunk], ...]`, in order.
    static func write(_ lastChunks: [FanOutTally.Channel: Int], to output: inout ByteWriter) {
        channelChunks(lastChunks).write(to: &output)
    }

    static func lastChunks(_ bytes: [UInt8]) -> [FanOutTally.Channel: Int]? {
        (try? JSONParser.parse(bytes)).flatMap(channelChunks)
    }

    static func write(_ subject: FanOutStatusSubject, to output: inout ByteWriter) {
        JSONValue.object([
            "kind": .string(subject.target.kind.rawValue), "send_id": .string(subject.sendID),
            "target": .string(subject.target.text), "time": .number(String(subject.time)),
        ]).write(to: &output)
    }

    static func subject(_ value: UnsafeRawBufferPointer) -> FanOutStatusSubject? {
        guard let json = try? JSONParser.parse(value), let sendID = json["send_id"]?.stringValue,
            let target = target(json), let time = json["time"].flatMap(integer)
        else { return nil }
        return FanOutStatusSubject(sendID: sendID, target: target, time: time)
    }

    static func lastChunks(_ value: UnsafeRawBufferPointer) -> [FanOutTally.Channel: Int]? {
        (try? JSONParser.parse(value)).flatMap(channelChunks)
    }

    /// `[[send id, walk, send time], ...]`, oldest first.
    static func write(_ copies: ConditionCopies, to output: inout ByteWriter) {
        JSONValue.array(
            copies.entries.map { .array([.string($0.sendID), .integer($0.walk), .number(String($0.sentAt))]) }
        ).write(to: &output)
    }

    static func conditionCopies(_ value: UnsafeRawBufferPointer) -> ConditionCopies? {
        guard case .array(let values)? = try? JSONParser.parse(value), values.count <= ConditionCopies.maximumKept
        else { return nil }
        var entries: [ConditionCopies.Entry] = []
        for value in values {
            guard case .array(let parts) = value, parts.count == 3, let sendID = parts[0].stringValue,
                let walk = count(parts[1]), let sentAt = integer(parts[2])
            else { return nil }
            entries.append(ConditionCopies.Entry(sendID: sendID, walk: walk, sentAt: sentAt))
        }
        return ConditionCopies(entries: entries)
    }

    /// `[last chunk, accepted]`.
    static func write(_ progress: FanOutTally.Progress, to output: inout ByteWriter) {
        JSONValue.array([.integer(progress.lastChunk), .integer(progress.accepted)]).write(to: &output)
    }

    static func progress(_ value: UnsafeRawBufferPointer) -> FanOutTally.Progress? {
        guard case .array(let parts)? = try? JSONParser.parse(value), parts.count == 2,
            let lastChunk = count(parts[0]), let accepted = count(parts[1])
        else { return nil }
        return FanOutTally.Progress(lastChunk: lastChunk, accepted: accepted)
    }

    /// A JSON number that is a non-negative `Int`.
    static func count(_ value: JSONValue) -> Int? {
        integer(value).flatMap(count)
    }

    /// `value` when it is a non-negative `Int`.
    static func count(_ value: Int64) -> Int? {
        value >= 0 ? Int(exactly: value) : nil
    }

    /// `<lower>-<upper>`: how a message's id range is written, in a header or in JSON.
    static func text(of range: Range<Int>) -> String { "\(range.lowerBound)-\(range.upperBound)" }

    /// The range ``text(of:)`` wrote.
    static func range(_ text: String) -> Range<Int>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let lower = Int(parts[0]), let upper = Int(parts[1]), 0 <= lower, lower <= upper
        else { return nil }
        return lower..<upper
    }

    private static func integer(_ value: JSONValue) -> Int64? {
        if case .number(let text) = value { Int64(text) } else { nil }
    }

    /// `[[partition, chunk], ...]`, by partition.
    private static func partitionChunks(_ chunks: [Int32: Int]) -> JSONValue {
        .array(chunks.sorted { $0.key < $1.key }.map { .array([.integer(Int($0.key)), .integer($0.value)]) })
    }

    private static func partitionChunks(_ value: JSONValue) -> [Int32: Int]? {
        guard case .array(let pairs) = value else { return nil }
        var chunks: [Int32: Int] = [:]
        for pair in pairs {
            guard case .array(let parts) = pair, parts.count == 2,
                let partition = count(parts[0]).flatMap(Int32.init(exactly:)), let chunk = count(parts[1])
            else { return nil }
            chunks[partition] = chunk
        }
        return chunks
    }

    private static func channelChunks(_ chunks: [FanOutTally.Channel: Int]) -> JSONValue {
        .array(
            chunks.sorted { ($0.key.segment, $0.key.partition) < ($1.key.segment, $1.key.partition) }.map {
                .array([.integer($0.key.segment), .integer(Int($0.key.partition)), .integer($0.value)])
            })
    }

    private static func channelChunks(_ value: JSONValue) -> [FanOutTally.Channel: Int]? {
        guard case .array(let triples) = value else { return nil }
        var chunks: [FanOutTally.Channel: Int] = [:]
        for triple in triples {
            guard case .array(let parts) = triple, parts.count == 3, let segment = count(parts[0]),
                let partition = count(parts[1]).flatMap(Int32.init(exactly:)), let chunk = count(parts[2])
            else { return nil }
            chunks[FanOutTally.Channel(segment: segment, partition: partition)] = chunk
        }
        return chunks
    }

    private static func target(_ json: JSONValue) -> TopicTarget? {
        guard let kind = json["kind"]?.stringValue.flatMap(TopicTarget.Kind.init(rawValue:)),
            let text = json["target"]?.stringValue, case .success(let target) = TopicTarget.parse(text, as: kind)
        else { return nil }
        return target
    }

    private static func fields(of message: FanOutMessage) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "kind": .string(message.target.kind.rawValue), "target": .string(message.target.text),
            "time": .number(String(message.time)),
        ]
        if let key = message.collapseKey { members["collapse_key"] = .string(key) }
        if let expiresAt = message.expiresAt { members["expires_at"] = .number(String(expiresAt)) }
        if let range = message.idRange { members["id_range"] = .string(Self.text(of: range)) }
        return members
    }

    private static func message(sendID: String, _ json: JSONValue, apns: [UInt8]) -> FanOutMessage? {
        guard let target = target(json), let time = json["time"].flatMap(integer) else { return nil }
        var idRange: Range<Int>?
        if let text = json["id_range"] {
            guard let range = text.stringValue.flatMap(Self.range) else { return nil }
            idRange = range
        }
        return FanOutMessage(
            sendID: sendID, target: target, collapseKey: json["collapse_key"]?.stringValue,
            expiresAt: json["expires_at"].flatMap(integer), time: time, apns: apns, idRange: idRange)
    }
}
