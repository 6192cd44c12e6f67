import FCMTranslation

/// The changelog's JSON forms of a fan-out's state: a walk's progress and a tally's counts,
/// with the send's fields, members in name order. Reading is strict about shape and lenient
/// about nothing: a value that does not read is a malformed record, never a trap.
enum FanOutJSON {
    /// A walk's value: its JSON, a newline, and the send's `apns` object (JSON written here
    /// holds no raw newline).
    static func write(_ walk: FanOutWalk, to output: inout ByteWriter) {
        var members = fields(of: walk.message)
        members["cursors"] = .array(
            walk.cursors.map { cursor in
                cursor.map { .array([.integer(Int($0.bucket)), $0.after.map(JSONValue.string) ?? .null]) } ?? .null
            })
        members["sequences"] = .array(walk.sequences.map(JSONValue.integer))
        JSONValue.object(members).write(to: &output)
        output.append(UInt8(ascii: "\n"))
        output.append(walk.message.apns)
    }

    /// The walk of topic `topicIndex` of send `sendID` a changelog value holds.
    static func walk(sendID: String, topicIndex: Int, value: UnsafeRawBufferPointer) -> FanOutWalk? {
        guard let newline = value.firstIndex(of: UInt8(ascii: "\n")),
            let json = try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: value[..<newline])),
            let message = message(sendID: sendID, json, apns: Array(value[(newline + 1)...])),
            case .array(let cursorValues)? = json["cursors"], case .array(let sequenceValues)? = json["sequences"],
            (1...FanOutWalk.maximumSegments).contains(cursorValues.count)
        else { return nil }
        var cursors: [TopicMembers.Cursor?] = []
        for value in cursorValues {
            switch value {
            case .null: cursors.append(nil)
            case .array(let parts) where parts.count == 2:
                guard let bucket = count(parts[0]).flatMap(UInt16.init(exactly:)) else { return nil }
                cursors.append(TopicMembers.Cursor(bucket: bucket, after: parts[1].stringValue))
            default: return nil
            }
        }
        let sequences = sequenceValues.compactMap(count)
        guard sequences.count == sequenceValues.count else { return nil }
        return FanOutWalk(message: message, topicIndex: topicIndex, cursors: cursors, sequences: sequences)
    }

    static func write(_ tally: FanOutTally, to output: inout ByteWriter) {
        let counts = { (values: [Int]) in JSONValue.array(values.map(JSONValue.integer)) }
        JSONValue.object([
            "acknowledged": .array(tally.acknowledged.map(counts)),
            "count": .integer(tally.count),
            "kind": .string(tally.message.target.kind.rawValue),
            "sent": .array(tally.sent.map { $0.map(counts) ?? .null }),
            "send_id": .string(tally.message.sendID),
            "target": .string(tally.message.target.text),
            "time": .integer(Int(tally.message.time)),
        ]).write(to: &output)
    }

    static func tally(_ value: UnsafeRawBufferPointer) -> FanOutTally? {
        guard let json = try? JSONParser.parse(value), let sendID = json["send_id"]?.stringValue,
            let target = target(json), let time = json["time"].flatMap(integer),
            case .array(let sentValues)? = json["sent"], case .array(let acknowledgedValues)? = json["acknowledged"],
            let count = json["count"].flatMap(count), sentValues.count == acknowledgedValues.count
        else { return nil }
        var sent: [[Int]?] = []
        for value in sentValues {
            if case .null = value {
                sent.append(nil)
            } else if let counts = counts(value) {
                sent.append(counts)
            } else {
                return nil
            }
        }
        let acknowledged = acknowledgedValues.compactMap(counts)
        guard acknowledged.count == acknowledgedValues.count else { return nil }
        return FanOutTally(
            message: FanOutStatusSubject(sendID: sendID, target: target, time: time), sent: sent,
            acknowledged: acknowledged, count: count)
    }

    /// A JSON number that is a non-negative `Int`.
    static func count(_ value: JSONValue) -> Int? {
        integer(value).flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
    }

    /// `<lower>-<upper>`, as the repartition topic's `id-range` header holds a range.
    static func range(_ text: String) -> Range<Int>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let lower = Int(parts[0]), let upper = Int(parts[1]), 0 <= lower, lower <= upper
        else { return nil }
        return lower..<upper
    }

    private static func integer(_ value: JSONValue) -> Int64? {
        if case .number(let text) = value { Int64(text) } else { nil }
    }

    private static func counts(_ value: JSONValue) -> [Int]? {
        guard case .array(let values) = value else { return nil }
        let counts = values.compactMap(count)
        return counts.count == values.count ? counts : nil
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
            "time": .integer(Int(message.time)),
        ]
        if let key = message.collapseKey { members["collapse_key"] = .string(key) }
        if let expiresAt = message.expiresAt { members["expires_at"] = .number(String(expiresAt)) }
        if let range = message.idRange {
            members["id_range"] = .array([.integer(range.lowerBound), .integer(range.upperBound)])
        }
        return members
    }

    private static func message(sendID: String, _ json: JSONValue, apns: [UInt8]) -> FanOutMessage? {
        guard let target = target(json), let time = json["time"].flatMap(integer) else { return nil }
        var idRange: Range<Int>?
        if case .array(let bounds)? = json["id_range"] {
            guard bounds.count == 2, let lower = count(bounds[0]), let upper = count(bounds[1]), lower <= upper else {
                return nil
            }
            idRange = lower..<upper
        }
        return FanOutMessage(
            sendID: sendID, target: target, collapseKey: json["collapse_key"]?.stringValue,
            expiresAt: json["expires_at"].flatMap(integer), time: time, apns: apns, idRange: idRange)
    }
}
