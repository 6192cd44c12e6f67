import DeviceQueues
import FCMTranslation
import PropertyBased
import Testing

@testable import BridgeCore

/// A device's status in the changelog: what the worker writes is read by matching its layout,
/// and anything else by the JSON parser, with the same result for the same meaning.
@Suite("A device's changelog value")
struct DeviceStatusValueTests {
    static let activities = Gen.element(of: [Int64.min, -1, 0, 7, 1_700_000_000_000, Int64.max] as [Int64])
        .map { (activity: Int64?) -> Int64 in activity ?? 0 }
    static let notices = Gen.element(
        of: [
            nil, DeletionNotice(reason: .tooManyPending, count: 0), DeletionNotice(reason: .deviceInactive, count: 101),
            DeletionNotice(reason: .tooManyPending, count: Int.max),
        ] as [DeletionNotice?]
    ).map { (notice: DeletionNotice??) -> DeletionNotice? in notice ?? nil }

    static func written(_ status: DeviceStatus) -> [UInt8] {
        var output = ByteWriter()
        DeviceStatusValue.write(status, to: &output)
        return output.bytes
    }

    @Test("any status comes back from what is written, matched without the parser, as the parser reads it")
    func roundTrip() async {
        await propertyCheck(count: 200, input: Self.activities, Self.notices, Gen.bool) { activity, notice, online in
            let status = DeviceStatus(isOnline: online, lastActivity: activity, pendingNotice: notice)
            Self.written(status).withUnsafeBytes { bytes in
                #expect(DeviceStatusValue.readWritten(bytes) == status)
                #expect(DeviceStatusValue.readJSON(bytes) == status)
            }
        }
    }

    @Test(
        "the bytes written are the format on disk, which workers of 0.10 and 0.11 wrote and read",
        arguments: [
            (
                DeviceStatus(
                    isOnline: true, lastActivity: 1_700_000_000_000,
                    pendingNotice: DeletionNotice(reason: .tooManyPending, count: 3)),
                #"{"last_activity":1700000000000,"notice":{"count":3,"reason":"too_many_pending"},"online":true}"#
            ),
            (
                DeviceStatus(isOnline: false, lastActivity: -5, pendingNotice: nil),
                #"{"last_activity":-5,"online":false}"#
            ),
        ])
    func format(status: DeviceStatus, bytes: String) {
        #expect(String(decoding: Self.written(status), as: UTF8.self) == bytes)
    }

    static let offline5 = DeviceStatus(isOnline: false, lastActivity: 5, pendingNotice: nil)
    static let inactive2 = DeviceStatus(
        isOnline: false, lastActivity: 5, pendingNotice: DeletionNotice(reason: .deviceInactive, count: 2))

    @Test(
        "other JSON of the same meaning is not matched, and the parser reads it",
        arguments: [
            (#"{"online":false,"last_activity":5}"#, offline5), (#"{ "last_activity":5,"online":false}"#, offline5),
            (#"{"last_activity":5,"online":false,"extra":1}"#, offline5),
            (
                #"{"last_activity":-0,"online":false}"#,
                DeviceStatus(isOnline: false, lastActivity: 0, pendingNotice: nil)
            ),
            (#"{"last_activity":5,"notice":{"reason":"device_inactive","count":2},"online":false}"#, inactive2),
            (#"{"last_activity":5,"notice":{"count":2,"reason":"device\u005finactive"},"online":false}"#, inactive2),
        ])
    func otherLayouts(value: String, status: DeviceStatus) {
        Array(value.utf8).withUnsafeBytes { bytes in
            #expect(DeviceStatusValue.readWritten(bytes) == nil)
            #expect(DeviceStatusValue.read(bytes) == status)
        }
    }

    @Test(
        "numbers JSON does not allow are no status, matched or parsed",
        arguments: [#"{"last_activity":+5,"online":false}"#, #"{"last_activity":05,"online":false}"#])
    func notJSON(value: String) {
        Array(value.utf8).withUnsafeBytes { #expect(DeviceStatusValue.read($0) == nil) }
    }

    @Test("a written value cut or changed anywhere is never read otherwise than the parser reads it")
    func damaged() async {
        let status = DeviceStatus(
            isOnline: true, lastActivity: 1_700_000_000_000,
            pendingNotice: DeletionNotice(reason: .deviceInactive, count: 3))
        let written = Self.written(status)
        let bytes = Gen.int(in: 0...255).map { UInt8(truncatingIfNeeded: $0) }
        await propertyCheck(count: 1000, input: Gen.int(in: 0...(written.count - 1)), bytes, Gen.bool) {
            at, byte, cut in
            var value = written
            if cut { value.removeSubrange(at...) } else { value[at] = byte }
            value.withUnsafeBytes { bytes in
                if let matched = DeviceStatusValue.readWritten(bytes) {
                    #expect(matched == DeviceStatusValue.readJSON(bytes), "\(String(decoding: value, as: UTF8.self))")
                }
            }
        }
    }
}
