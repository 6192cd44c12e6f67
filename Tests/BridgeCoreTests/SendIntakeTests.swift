import DeviceQueues
import FCMTranslation
import Testing

@testable import BridgeCore

@Suite("Send intake")
struct SendIntakeTests {
    let intake = SendIntake(translator: APNsTranslator(bundleID: "com.example"))
    let time: Int64 = 1_700_000_000_500

    private func accepted(_ json: String, at time: Int64? = nil) -> [QueuedMessage] {
        intake.admit(Array(json.utf8), partition: 2, offset: 9, time: time ?? self.time).accepted.compactMap {
            if case .send(let message) = $0.input { message } else { nil }
        }
    }

    @Test("an apns object larger than the stack scratch is written whole")
    func largeRecord() throws {
        let value = String(repeating: "x", count: 3_000)
        let message = try #require(
            accepted(#"{"to": "t", "notification": {"title": "x"}, "data": {"big": "\#(value)"}}"#).first)
        let apns = message.withAPNs { String(decoding: $0, as: UTF8.self) }
        #expect(apns.hasPrefix(#"{"headers":"#) && apns.hasSuffix("}}"))
        #expect(apns.contains(#""big":"\#(value)""#))
    }

    @Test(
        "expiry and collapse key come from the translated APNs headers",
        arguments: [
            (#"{"to": "t", "time_to_live": 60}"#, 1_700_000_060_000 as Int64?, nil as String?),
            (#"{"to": "t", "time_to_live": 0}"#, 1_700_000_000_500, nil),
            (#"{"to": "t", "collapse_key": "k"}"#, nil, "k"),
            (
                #"{"message": {"token": "t", "apns": {"headers": {"apns-expiration": "1700000100", "apns-collapse-id": "c"}}}}"#,
                1_700_000_100_000, "c"
            ),
            (#"{"message": {"token": "t", "apns": {"headers": {"apns-expiration": "0"}}}}"#, 1_700_000_000_500, nil),
            (
                #"{"message": {"token": "t", "apns": {"headers": {"apns-expiration": "+1700000100"}}}}"#,
                1_700_000_100_000, nil
            ),
            (
                #"{"message": {"token": "t", "apns": {"headers": {"apns-expiration": "9223372036854774"}}}}"#,
                9_223_372_036_854_774_000, nil
            ),
        ])
    func expiryAndCollapseKey(request: String, expiresAt: Int64?, collapseKey: String?) {
        let messages = accepted(request)
        #expect(messages.count == 1)
        #expect(messages.first?.expiresAt == expiresAt)
        #expect(messages.first?.collapseKey == collapseKey)
        #expect(messages.first?.sentAt == time)
    }

    @Test(
        "an apns-expiration that is not a time in seconds is rejected, naming the header and its value",
        arguments: [
            "soon", "-1", "-01", "", "1.5", " 60", "9223372036854775", "+9223372036854775", "9223372036854775807",
            "99999999999999999999",
        ])
    func badExpiration(header: String) {
        let request = #"{"message": {"token": "t", "apns": {"headers": {"apns-expiration": "\#(header)"}}}}"#
        let result = intake.admit(Array(request.utf8), partition: 0, offset: 0, time: time)
        #expect(result.accepted.isEmpty)
        guard case .rejected(let id, let rejection, _)? = result.statuses.first?.status else {
            Issue.record("not rejected: \(result)")
            return
        }
        #expect(id == "0:0:0" && rejection.reason == .invalidArgument && rejection.detail.contains("apns-expiration"))
        #expect(rejection.detail.hasSuffix(#"must be a UNIX time in seconds, not "\#(header)""#))
    }

    @Test("a TTL from a send time at the end of Int64 milliseconds expires at the end of time, not in a trap")
    func expiryAtTheEndOfTime() {
        let messages = accepted(#"{"to": "t", "time_to_live": 60}"#, at: .max - 5)
        #expect(messages.count == 1)
        #expect(messages.first?.expiresAt == .max)
    }

    @Test("message ids are the record's partition and offset and the token's index: stable on a repeat")
    func messageIDs() {
        let request = #"{"registration_ids": ["a", "b", "c"], "notification": {"title": "x"}}"#
        let ids = accepted(request).map(\.id)
        #expect(ids == ["2:9:0", "2:9:1", "2:9:2"])
        #expect(accepted(request).map(\.id) == ids)
        let apns = accepted(request).map { (try? JSONParser.parse($0.withAPNs { Array($0) })) ?? .null }
        #expect(apns.map { $0["payload"]?["gcm.message_id"] } == ids.map(JSONValue.string))
    }

    @Test("a rejected request with readable targets gets a status per token; without, one with no token")
    func rejectionAddressing() {
        let multicast = intake.admit(
            Array(#"{"registration_ids": ["a", "b"], "time_to_live": -1}"#.utf8), partition: 0, offset: 1, time: time)
        #expect(multicast.statuses.map(\.token) == ["a", "b"])
        #expect(multicast.deadLetter == nil)
        let garbage = intake.admit(Array("{".utf8), partition: 0, offset: 2, time: time)
        #expect(garbage.statuses.map(\.token) == [nil])
        #expect(garbage.deadLetter != nil)
        let empty = intake.admit(nil, partition: 0, offset: 3, time: time)
        #expect(empty.deadLetter != nil && empty.statuses.count == 1)
    }

    @Test(
        "a request over FCM's 1,000-token limit gets one rejection with no token, not one per token",
        arguments: [1_001, 1_500, 100_000])
    func overTheTokenLimit(count: Int) throws {
        let ids = (0..<count).map { "\"t\($0)\"" }.joined(separator: ",")
        let result = intake.admit(
            Array(#"{"registration_ids": [\#(ids)], "data": {"k": "v"}}"#.utf8), partition: 0, offset: 4, time: time)
        #expect(result.accepted.isEmpty && result.deadLetter == nil)
        let status = try #require(result.statuses.first)
        #expect(result.statuses.count == 1 && status.token == nil)
        guard case .rejected(nil, let rejection, _) = status.status else {
            Issue.record("not rejected: \(status)")
            return
        }
        #expect(rejection.reason == .invalidArgument && rejection.detail.contains("registration_ids"))
    }

    @Test("at the limit, every token is its own message")
    func atTheTokenLimit() {
        let ids = (0..<1_000).map { "\"t\($0)\"" }.joined(separator: ",")
        let result = intake.admit(
            Array(#"{"registration_ids": [\#(ids)], "data": {"k": "v"}}"#.utf8), partition: 0, offset: 4, time: time)
        #expect(result.accepted.count == 1_000 && result.statuses.isEmpty)
    }
}
