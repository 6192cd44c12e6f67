import FCMBridgeClient
import Testing

@Suite("Status events")
struct StatusEventTests {
    @Test(
        "each of the contract's type names reads as its type, and back",
        arguments: [
            ("queued", StatusEvent.EventType.queued), ("dispatched", .dispatched), ("delivered", .delivered),
            ("collapsed", .collapsed), ("expired", .expired), ("deleted_messages", .deletedMessages),
            ("rejected", .rejected),
            ("validated", .validated), ("subscribed", .subscribed), ("unsubscribed", .unsubscribed),
            ("fanned_out", .fannedOut),
            ("a_later_type", .other("a_later_type")),
        ])
    func type(name: String, expected: StatusEvent.EventType) throws {
        let event = try StatusEvent.decode(Array(#"{"type":"\#(name)","token":"t","at":5}"#.utf8))
        #expect(event.type == expected)
        #expect(event.type.name == name)
    }

    @Test("a deleted_messages event keeps its fields and the record as written")
    func deletedMessages() throws {
        let json =
            #"{"type":"deleted_messages","token":"t","at":5,"reason":"too_many_pending","count":2,"message_ids":["a","b"]}"#
        let event = try StatusEvent.decode(Array(json.utf8))
        #expect(event.messageID == nil)
        #expect(event.reason == "too_many_pending")
        #expect(event.count == 2)
        #expect(event.messageIDs == ["a", "b"])
        #expect(event.json == Array(json.utf8))
    }

    @Test("subscription and fan-out events keep their topic, condition and count")
    func topicEvents() throws {
        let subscribed = try StatusEvent.decode(Array(#"{"at":5,"token":"t","topic":"news","type":"subscribed"}"#.utf8))
        #expect(subscribed.type == .subscribed && subscribed.topic == "news" && subscribed.messageID == nil)
        let json =
            #"{"at":5,"condition":"'a' in topics","count":3,"message_id":"0:1:0","token":"a","type":"fanned_out"}"#
        let fannedOut = try StatusEvent.decode(Array(json.utf8))
        #expect(fannedOut.condition == "'a' in topics" && fannedOut.count == 3 && fannedOut.topic == nil)
    }

    @Test(
        "a record that is not a status event does not decode",
        arguments: [#"{"token":"t"}"#, "not json", #"{"type":1,"at":5}"#])
    func notAStatus(json: String) {
        #expect(throws: (any Error).self) { try StatusEvent.decode(Array(json.utf8)) }
    }
}
