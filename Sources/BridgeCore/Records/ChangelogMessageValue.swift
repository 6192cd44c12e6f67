import DeviceQueues
import FCMTranslation

/// The value of a waiting message's changelog record:
/// `{"apns":<object>,"kind":"message","expires_at":<ms or null>,"collapse_key":<string or null>}`.
///
/// It carries the message's expiry and collapse key, so that a restore takes them from the value
/// and librdkafka never parses the record's headers (a third of decoding a change, measured).
/// It has the shape of an inbox record, from which a worker of 0.10 takes the `apns` object
/// (``InboxEncoding/apnsRange(stored:)``), and the `collapse-key` and `expires-at` headers are
/// written as well: during a rolling upgrade, a worker of 0.10 restores these records right.
/// A value without the two fields (0.10 wrote the `apns` object alone) has them in headers.
struct ChangelogMessageValue {
    /// The expiry and collapse key of a waiting message.
    struct Fields {
        /// When the message expires, in milliseconds; nil for the rules' default time to live.
        var expiresAt: Int64?
        /// Its collapse key.
        var collapseKey: String?
    }

    /// Where the `apns` object is in the value.
    let apns: Range<Int>
    /// The fields the value carries; nil when it carries none.
    let fields: Fields?

    private static let expiresAtName: StaticString = #""expires_at":"#
    private static let collapseKeyName: StaticString = #","collapse_key":"#
    private static let null: StaticString = "null"

    /// Reads a stored value.
    init(_ value: UnsafeRawBufferPointer) {
        guard let mark = InboxEncoding.kindMark(in: value) else {
            apns = 0..<value.count
            fields = nil
            return
        }
        apns = mark.apns
        fields = Self.fields(in: UnsafeRawBufferPointer(rebasing: value[mark.rest...]))
    }

    /// Writes the value of `message`, whose collapse key (read once by the caller, who writes it
    /// into a header too) is `collapseKey`.
    static func write(_ message: QueuedMessage, collapseKey: String?, to output: inout ByteWriter) {
        output.append(InboxEncoding.apnsOpening)
        message.withAPNs { output.append($0) }
        output.append(InboxEncoding.messageKindMark)
        output.append(expiresAtName)
        if let expiresAt = message.expiresAt {
            JSONOutput.writeInteger(expiresAt, to: &output)
        } else {
            output.append(null)
        }
        output.append(collapseKeyName)
        if let collapseKey { JSONOutput.writeString(collapseKey, to: &output) } else { output.append(null) }
        output.append(UInt8(ascii: "}"))
    }

    /// The fields of `"expires_at":<ms or null>,"collapse_key":<string or null>}`, the end of a
    /// value after its kind; nil for anything else, such as the rest of a whole inbox record.
    private static func fields(in rest: UnsafeRawBufferPointer) -> Fields? {
        let nameEnd = expiresAtName.utf8CodeUnitCount
        guard rest.count > nameEnd, rest.last == UInt8(ascii: "}"), rest.holds(expiresAtName, at: 0),
            let comma = rest.firstIndex(of: UInt8(ascii: ","), from: nameEnd), rest.holds(collapseKeyName, at: comma)
        else {
            return nil
        }
        let keyStart = comma + collapseKeyName.utf8CodeUnitCount
        guard keyStart < rest.count,
            let expiresAt = integerOrNull(UnsafeRawBufferPointer(rebasing: rest[nameEnd..<comma])),
            let collapseKey = stringOrNull(UnsafeRawBufferPointer(rebasing: rest[keyStart..<(rest.count - 1)]))
        else {
            return nil
        }
        return Fields(expiresAt: expiresAt, collapseKey: collapseKey)
    }

    /// `.some(nil)` for `null`, the number for a whole number that fits, nil for anything else.
    private static func integerOrNull(_ text: UnsafeRawBufferPointer) -> Int64?? {
        if isNull(text) { return .some(nil) }
        return DecimalInteger.parse(text.assumingMemoryBound(to: UInt8.self)).map { .some(Int64($0)) }
    }

    /// `.some(nil)` for `null`, the text of a JSON string, nil for anything else.
    private static func stringOrNull(_ text: UnsafeRawBufferPointer) -> String?? {
        if isNull(text) { return .some(nil) }
        let quote = UInt8(ascii: "\"")
        guard text.count >= 2, text.first == quote, text.last == quote else { return nil }
        let inner = UnsafeRawBufferPointer(rebasing: text[1..<(text.count - 1)])
        // Plain text (what nearly every collapse key is) as it is; the rest through the parser.
        if JSONScan.plainPrefix(inner, allowingNonASCII: true) == inner.count {
            return .some(String(decoding: inner, as: UTF8.self))
        }
        guard case .string(let key)? = try? JSONParser.parse(text) else { return nil }
        return .some(key)
    }

    private static func isNull(_ text: UnsafeRawBufferPointer) -> Bool {
        text.count == null.utf8CodeUnitCount && text.holds(null, at: 0)
    }
}
