import DeviceQueues
import FCMTranslation

/// The value of a device's changelog record (`d <token>`):
/// `{"last_activity":<ms>,"notice":{"count":<n>,"reason":"<reason>"},"online":<bool>}`, members in
/// name order, the notice only while one is pending.
///
/// Every device has one, so a restore reads as many of them as it restores devices: the exact
/// layout ``write(_:to:)`` writes is read by matching it, at a fraction of the JSON parser's
/// cost, and anything else, such as a value written by hand, by the parser.
enum DeviceStatusValue {
    private static let lastActivityName: StaticString = #"{"last_activity":"#
    private static let noticeName: StaticString = #","notice":{"count":"#
    private static let reasonName: StaticString = #","reason":""#
    private static let noticeEnd: StaticString = #""}"#
    private static let onlineTrue: StaticString = #","online":true}"#
    private static let onlineFalse: StaticString = #","online":false}"#

    /// Writes `status`'s value.
    static func write(_ status: DeviceStatus, to output: inout ByteWriter) {
        output.append(lastActivityName)
        JSONOutput.writeInteger(status.lastActivity, to: &output)
        if let notice = status.pendingNotice {
            output.append(noticeName)
            JSONOutput.writeInteger(Int64(notice.count), to: &output)
            output.append(reasonName)
            output.append(utf8: notice.reason.rawValue)
            output.append(noticeEnd)
        }
        output.append(status.isOnline ? onlineTrue : onlineFalse)
    }

    /// The status a value holds; nil when it is not a status.
    static func read(_ value: UnsafeRawBufferPointer) -> DeviceStatus? {
        readWritten(value) ?? readJSON(value)
    }

    /// The status in `value` when its bytes are exactly what ``write(_:to:)`` writes; nil for
    /// any other bytes, even JSON with the same meaning.
    static func readWritten(_ value: UnsafeRawBufferPointer) -> DeviceStatus? {
        guard value.holds(lastActivityName, at: 0),
            let (lastActivity, afterActivity) = integer(in: value, from: lastActivityName.utf8CodeUnitCount)
        else { return nil }
        var position = afterActivity
        var notice: DeletionNotice?
        if value.holds(noticeName, at: position) {
            guard let (count, afterCount) = integer(in: value, from: position + noticeName.utf8CodeUnitCount),
                value.holds(reasonName, at: afterCount)
            else { return nil }
            let reasonStart = afterCount + reasonName.utf8CodeUnitCount
            guard let reasonEnd = value.firstIndex(of: UInt8(ascii: "\""), from: reasonStart),
                let reason = DeletionReason(
                    rawValue: String(
                        decoding: UnsafeRawBufferPointer(rebasing: value[reasonStart..<reasonEnd]), as: UTF8.self)),
                value.holds(noticeEnd, at: reasonEnd)
            else { return nil }
            notice = DeletionNotice(reason: reason, count: Int(count))
            position = reasonEnd + noticeEnd.utf8CodeUnitCount
        }
        let rest = value.count - position
        if rest == onlineTrue.utf8CodeUnitCount && value.holds(onlineTrue, at: position) {
            return DeviceStatus(isOnline: true, lastActivity: lastActivity, pendingNotice: notice)
        }
        if rest == onlineFalse.utf8CodeUnitCount && value.holds(onlineFalse, at: position) {
            return DeviceStatus(isOnline: false, lastActivity: lastActivity, pendingNotice: notice)
        }
        return nil
    }

    /// The integer written at `start`, up to the next comma, and where that comma is; nil unless
    /// the digits are exactly what `JSONOutput.writeInteger` writes for it.
    private static func integer(in value: UnsafeRawBufferPointer, from start: Int) -> (Int64, end: Int)? {
        guard let end = value.firstIndex(of: UInt8(ascii: ","), from: start) else { return nil }
        let digits = UnsafeRawBufferPointer(rebasing: value[start..<end])
        guard let parsed = DecimalInteger.parse(digits.assumingMemoryBound(to: UInt8.self)),
            let number = Int64(exactly: parsed), JSONOutput.integerByteCount(number) == digits.count
        else { return nil }
        return (number, end)
    }

    /// The status in a JSON object with its members in any order and any spacing.
    static func readJSON(_ value: UnsafeRawBufferPointer) -> DeviceStatus? {
        guard let json = try? JSONParser.parse(value),
            case .bool(let online)? = json["online"], let activity = json["last_activity"].flatMap(integer)
        else { return nil }
        var notice: DeletionNotice?
        if let value = json["notice"] {
            guard let reason = value["reason"]?.stringValue.flatMap(DeletionReason.init(rawValue:)),
                let count = value["count"].flatMap(integer)
            else { return nil }
            notice = DeletionNotice(reason: reason, count: Int(count))
        }
        return DeviceStatus(isOnline: online, lastActivity: activity, pendingNotice: notice)
    }

    private static func integer(_ value: JSONValue) -> Int64? {
        if case .number(let text) = value { Int64(text) } else { nil }
    }
}
