import Testing

@testable import FCMTranslation

/// Topic and condition targets as the decoders read them, in both API shapes.
@Suite("Topic targets")
struct TopicTargetTests {
    @Test(
        "a topic or condition target is read with no device tokens",
        arguments: [
            (#"{"message":{"topic":"news"}}"#, TopicTarget.Kind.topic, "news", ["news"]),
            (#"{"message":{"topic":"/topics/news"}}"#, .topic, "news", ["news"]),
            (#"{"to":"/topics/news"}"#, .topic, "news", ["news"]),
            (#"{"to":"\/topics\/a-b_c.d~e%f"}"#, .topic, "a-b_c.d~e%f", ["a-b_c.d~e%f"]),
            (
                #"{"message":{"condition":"'a' in topics && ('b' in topics || 'a' in topics)"}}"#, .condition,
                "'a' in topics && ('b' in topics || 'a' in topics)", ["a", "b"]
            ),
            (
                #"{"condition":"'x' in topics || 'y' in topics","dry_run":true}"#, .condition,
                "'x' in topics || 'y' in topics", ["x", "y"]
            ),
        ])
    func read(request: String, kind: TopicTarget.Kind, text: String, topics: [String]) throws {
        let decoded = try RequestDecoder.decode(Array(request.utf8)).get()
        #expect(decoded.tokens.isEmpty)
        let target = try #require(decoded.topicTarget)
        #expect(target.kind == kind && target.text == text && target.condition.topics == topics)
        #expect(target.firstTopic == topics[0])
    }

    @Test("a device target has no topic target")
    func device() throws {
        #expect(try RequestDecoder.decode(Array(#"{"to":"t"}"#.utf8)).get().topicTarget == nil)
        #expect(try RequestDecoder.decode(Array(#"{"message":{"fid":"f"}}"#.utf8)).get().topicTarget == nil)
    }

    @Test("a topic target's translation says where its message id is, inside the quotes")
    func idRange() throws {
        let request = try RequestDecoder.decode(Array(#"{"message":{"topic":"news","data":{"a":"b"}}}"#.utf8)).get()
        var output = ByteWriter()
        let summary = try APNsTranslator().translate(request, messageID: "1:2:0/abc", sentAt: 0, into: &output).get()
        let bytes = output.withUnsafeBytes { Array($0) }
        let range = try #require(summary.messageIDRange)
        #expect(String(decoding: bytes[range], as: UTF8.self) == "1:2:0/abc")
    }

    @Test("a request's own gcm.message_id leaves no place for the id")
    func ownID() throws {
        let request = try RequestDecoder.decode(
            Array(#"{"message":{"topic":"news","apns":{"payload":{"gcm.message_id":"mine"}}}}"#.utf8)
        ).get()
        var output = ByteWriter()
        let summary = try APNsTranslator().translate(request, messageID: "1:2:0", sentAt: 0, into: &output).get()
        #expect(summary.messageIDRange == nil)
    }
}
