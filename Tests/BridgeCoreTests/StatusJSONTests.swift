import DeviceQueues
import FCMTranslation
import Testing

@testable import BridgeCore

/// Status values against the contract's "Output: status", written out by hand from it.
@Suite("Status events")
struct StatusJSONTests {
    @Test(
        "each status type has the contract's fields",
        arguments: [
            (
                BridgeStatus.queue(.queued(messageID: "m", at: 5)),
                #"{"at":5,"message_id":"m","token":"t","type":"queued"}"#
            ),
            (.queue(.dispatched(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"dispatched"}"#),
            (.queue(.delivered(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"delivered"}"#),
            (.queue(.expired(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"expired"}"#),
            (
                .queue(.collapsed(messageID: "m", reason: .collapseKeyLimit, replacedBy: "n", at: 5)),
                #"{"at":5,"message_id":"m","reason":"collapse_key_limit","replaced_by":"n","token":"t","type":"collapsed"}"#
            ),
            (
                .queue(.deletedMessages(reason: .tooManyPending, count: 2, messageIDs: ["a", "b"], at: 5)),
                #"{"at":5,"count":2,"message_ids":["a","b"],"reason":"too_many_pending","token":"t","type":"deleted_messages"}"#
            ),
            (
                .rejected(messageID: "m", Rejection(.payloadTooLarge, "too big"), at: 5),
                #"{"at":5,"detail":"too big","message_id":"m","reason":"payload_too_large","token":"t","type":"rejected"}"#
            ),
            (.validated(messageID: "m", at: 5), #"{"at":5,"message_id":"m","token":"t","type":"validated"}"#),
            (
                .subscription(.subscribe, topic: "news", at: 5),
                #"{"at":5,"token":"t","topic":"news","type":"subscribed"}"#
            ),
            (
                .subscription(.unsubscribe, topic: "news", at: 5),
                #"{"at":5,"token":"t","topic":"news","type":"unsubscribed"}"#
            ),
            (
                .rejected(
                    messageID: nil, Rejection(.tooManyTopics, "topic t: the device is subscribed to 2000 topics"), at: 5
                ),
                #"{"at":5,"detail":"topic t: the device is subscribed to 2000 topics","reason":"too_many_topics","token":"t","type":"rejected"}"#
            ),
        ])
    func statusFields(status: BridgeStatus, expected: String) throws {
        // Written after another record, as in a run of outputs: the status stands on its own.
        var outputs = OutputRecords()
        OutputEncoder().status(
            AddressedStatus(token: "other", status: .queue(.queued(messageID: "x", at: 1))), to: &outputs)
        OutputEncoder().status(AddressedStatus(token: "t", status: status), to: &outputs)
        let record = outputs.copy(at: 1)
        // Members in name order, as every status is written.
        #expect(String(decoding: try #require(record.value), as: UTF8.self) == expected)
        #expect(
            record.topic == .status && record.key == Array("t".utf8) && record.timestamp == 5 && record.partition == nil
        )
    }

    @Test("a status about undecodable input has no token and a null key")
    func noToken() throws {
        let record = written {
            OutputEncoder().status(
                AddressedStatus(token: nil, status: .rejected(messageID: nil, Rejection(.invalidArgument, "x"), at: 1)),
                to: &$0)
        }
        let json = try JSONParser.parse(try #require(record.value))
        #expect(json["token"] == nil && json["message_id"] == nil && record.key == nil)
    }
}
