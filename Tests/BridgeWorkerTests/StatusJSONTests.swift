@_spi(Benchmarks) @testable import BridgeWorker
import DeviceQueues
import FCMTranslation
import Testing

/// Status values against the contract's "Output: status", written out by hand from it.
@Suite("Status events")
struct StatusJSONTests {
    @Test("each status type has the contract's fields", arguments: [
        (BridgeStatus.queue(.queued(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"queued"}"#),
        (.queue(.dispatched(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"dispatched"}"#),
        (.queue(.delivered(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"delivered"}"#),
        (.queue(.expired(messageID: "m", at: 5)), #"{"at":5,"message_id":"m","token":"t","type":"expired"}"#),
        (.queue(.collapsed(messageID: "m", reason: .collapseKeyLimit, replacedBy: "n", at: 5)),
         #"{"at":5,"message_id":"m","reason":"collapse_key_limit","replaced_by":"n","token":"t","type":"collapsed"}"#),
        (.queue(.deletedMessages(reason: .tooManyPending, count: 2, messageIDs: ["a", "b"], at: 5)),
         #"{"at":5,"count":2,"message_ids":["a","b"],"reason":"too_many_pending","token":"t","type":"deleted_messages"}"#),
        (.rejected(messageID: "m", Rejection(.payloadTooLarge, "too big"), at: 5),
         #"{"at":5,"detail":"too big","message_id":"m","reason":"payload_too_large","token":"t","type":"rejected"}"#),
        (.validated(messageID: "m", at: 5), #"{"at":5,"message_id":"m","token":"t","type":"validated"}"#),
    ])
    func statusFields(status: BridgeStatus, expected: String) throws {
        #expect(try JSONParser.parse(status.json(token: "t")) == JSONParser.parse(Array(expected.utf8)))
        #expect(status.time == 5)
    }

    @Test("a status about undecodable input has no token")
    func noToken() throws {
        let json = try JSONParser.parse(BridgeStatus.rejected(messageID: nil, Rejection(.invalidArgument, "x"), at: 1).json(token: nil))
        #expect(json["token"] == nil && json["message_id"] == nil)
    }
}
