import DeviceQueues
import PropertyBased
import Testing

@Suite("Queued messages")
struct QueuedMessageTests {
    static let text = Gen.unicodeScalar(in: "\u{0}"..."\u{2FF}").map { Character($0) }.string(of: 0...40)
    static let time = Gen.int64(in: Int64.min...Int64.max)

    @Test("a message gives back every field it was made with, whatever they hold")
    func fields() async {
        await propertyCheck(
            count: 300,
            input: Self.text, Self.text.optional, Self.time, Self.time.optional, Gen.uint8().array(of: 0...300)
        ) { id, collapseKey, sentAt, expiresAt, apns in
            let message = QueuedMessage(
                id: id, collapseKey: collapseKey, sentAt: sentAt, expiresAt: expiresAt, apns: apns)
            #expect(Array(message.id.utf8) == Array(id.utf8))
            #expect(message.collapseKey.map { Array($0.utf8) } == collapseKey.map { Array($0.utf8) })
            #expect(
                message.sentAt == sentAt && message.expiresAt == expiresAt
                    && message.isCollapsible == (collapseKey != nil))
            #expect(message.withAPNs { Array($0) } == apns)
            #expect(message.hasID(id) && !message.hasID(id + "x"))
            #expect(
                collapseKey.map { message.hasCollapseKey($0) && !message.hasCollapseKey($0 + "x") }
                    ?? !message.hasCollapseKey(""))
        }
    }

    @Test("setting the expiry changes the expiry alone, and not the copy it was made from")
    func setExpiry() async {
        await propertyCheck(count: 200, input: Self.time.optional, Self.time.optional) { before, after in
            let original = QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 5, expiresAt: before, apns: [1, 2, 3])
            var changed = original
            changed.expiresAt = after
            #expect(changed.expiresAt == after && original.expiresAt == before)
            #expect(
                changed.id == "1:2:0" && changed.collapseKey == "k" && changed.sentAt == 5
                    && changed.withAPNs { Array($0) } == [1, 2, 3])
            let made = QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 5, expiresAt: after, apns: [1, 2, 3])
            #expect(changed == made && changed.hashValue == made.hashValue)
        }
    }

    @Test(
        "messages are equal when every field is",
        arguments: [
            QueuedMessage(id: "1:2:1", collapseKey: "k", sentAt: 5, expiresAt: 9, apns: [1]),
            QueuedMessage(id: "1:2:0", collapseKey: "j", sentAt: 5, expiresAt: 9, apns: [1]),
            QueuedMessage(id: "1:2:0", collapseKey: nil, sentAt: 5, expiresAt: 9, apns: [1]),
            QueuedMessage(id: "1:2:0", collapseKey: "", sentAt: 5, expiresAt: 9, apns: [1]),
            QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 6, expiresAt: 9, apns: [1]),
            QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 5, expiresAt: nil, apns: [1]),
            QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 5, expiresAt: 9, apns: [1, 0]),
            // The id's and the key's bytes moved between the two: the counts tell them apart.
            QueuedMessage(id: "1:2:0k", collapseKey: "", sentAt: 5, expiresAt: 9, apns: [1]),
        ])
    func equality(other: QueuedMessage) {
        let message = QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 5, expiresAt: 9, apns: [1])
        let same = QueuedMessage(id: "1:2:0", collapseKey: "k", sentAt: 5, expiresAt: 9, apns: [1])
        #expect(message == same && message.hashValue == same.hashValue)
        #expect(message != other)
    }

    @Test("ids and collapse keys are compared as bytes, not as canonically equivalent text")
    func bytewise() {
        let composed = QueuedMessage(id: "\u{E9}", collapseKey: "\u{E9}", sentAt: 5, expiresAt: nil, apns: [])
        let decomposed = QueuedMessage(id: "e\u{301}", collapseKey: "e\u{301}", sentAt: 5, expiresAt: nil, apns: [])
        #expect(composed != decomposed)
        #expect(!composed.hasID("e\u{301}") && !composed.hasCollapseKey("e\u{301}"))
        #expect(composed.hasID("\u{E9}") && decomposed.hasCollapseKey("e\u{301}"))
    }
}
