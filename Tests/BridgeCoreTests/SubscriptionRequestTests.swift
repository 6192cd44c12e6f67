import FCMTranslation
import Testing

@testable import BridgeCore

/// Decoding `fcm.subscriptions` records: FCM's batchAdd / batchRemove body.
@Suite("Subscription requests")
struct SubscriptionRequestTests {
    static func decode(_ json: String) -> Result<SubscriptionRequest, Rejection> {
        SubscriptionRequest.decode(Array(json.utf8))
    }

    @Test("tokens equal as strings but not as bytes are two devices, each subscribed")
    func tokensByBytes() throws {
        let request = try Self.decode(#"{"action":"subscribe","topic":"t","tokens":["caf\u00e9","cafe\u0301"]}"#).get()
        #expect(request.tokens.count == 2)
    }

    @Test("a request: action, topic without its /topics/ prefix, tokens in order, each once")
    func decodes() throws {
        let request = try Self.decode(#"{"action":"subscribe","topic":"/topics/news","tokens":["a","b","a"]}"#).get()
        #expect(request.action == .subscribe && request.topic == "news")
        #expect(request.tokens == ["a", "b"] && request.refused.isEmpty)
        let unsubscribe = try Self.decode(#"{"action":"unsubscribe","topic":"n-1_.~%","tokens":["a"]}"#).get()
        #expect(unsubscribe.action == .unsubscribe && unsubscribe.topic == "n-1_.~%")
    }

    @Test("bad tokens are refused one by one, naming their place; the rest apply")
    func badTokensAlone() throws {
        let request = try Self.decode(#"{"action":"subscribe","topic":"news","tokens":["a",7,"","b\"c","d"]}"#).get()
        #expect(request.tokens == ["a", "d"])
        #expect(request.refused.map(\.detail).map { String($0.prefix(9)) } == ["tokens[1]", "tokens[2]", "tokens[3]"])
        #expect(request.refused.allSatisfy { $0.reason == .invalidArgument && $0.tokens.isEmpty && !$0.isUndecodable })
    }

    @Test(
        "a request that cannot be applied is rejected, addressed to every token it names, or undecodable without them",
        arguments: [
            (#"{"action":"join","topic":"news","tokens":["a"]}"#, "action:", false),
            (#"{"topic":"news","tokens":["a"]}"#, "action:", false),
            (#"{"action":"subscribe","tokens":["a"]}"#, "topic: a topic name", false),
            (#"{"action":"subscribe","topic":"a b","tokens":["a"]}"#, "only letters", false),
            (#"{"action":"subscribe","topic":"/topics/","tokens":["a"]}"#, "empty", false),
            (#"{"action":"subscribe","topic":"news","tokens":[]}"#, "1 to 1000 tokens, not 0", false),
            (#"{"action":"subscribe","topic":"news"}"#, "tokens: an array", true),
            (#"{"action":"subscribe","topic":"news","tokens":"a"}"#, "tokens: must be an array", false),
            (#"[1]"#, "not a JSON object", true),
            ("not json", "not a JSON object", true),
        ] as [(String, String, Bool)])
    func rejected(json: String, detail: String, undecodable: Bool) {
        guard case .failure(let rejection) = Self.decode(json) else {
            Issue.record("accepted: \(json)")
            return
        }
        #expect(rejection.detail.contains(detail), "\(rejection)")
        #expect(rejection.isUndecodable == undecodable)
        #expect(rejection.tokens == (json.contains(#""tokens":["a"]"#) ? ["a"] : []))
    }

    @Test("a 900-character topic name is taken; 901 is not, and the detail says so without quoting it whole")
    func topicNameLength() throws {
        let name = String(repeating: "x", count: 900)
        #expect(try Self.decode(#"{"action":"subscribe","topic":"\#(name)","tokens":["a"]}"#).get().topic == name)
        guard case .failure(let rejection) = Self.decode(#"{"action":"subscribe","topic":"\#(name)x","tokens":["a"]}"#)
        else {
            Issue.record("a 901-character topic name was taken")
            return
        }
        #expect(rejection.detail.contains("this one has 901") && rejection.detail.utf8.count <= 256)
    }

    @Test("1,000 tokens are taken, 1,001 are not")
    func tokenLimit() {
        func request(_ count: Int) -> String {
            #"{"action":"subscribe","topic":"t","tokens":[""# + (0..<count).map { "d\($0)" }.joined(separator: #"",""#)
                + #""]}"#
        }
        #expect((try? Self.decode(request(1000)).get().tokens.count) == 1000)
        #expect((try? Self.decode(request(1001)).get()) == nil)
    }
}
