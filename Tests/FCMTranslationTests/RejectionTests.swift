import Testing

@testable import FCMTranslation

struct RejectionCase: CustomTestStringConvertible, Sendable {
    let name: String
    let request: String
    let reason: Rejection.Reason
    /// The detail must start with this (it names the field).
    let detail: String
    var undecodable = false
    var limit = 4096

    var testDescription: String { name }
}

@Suite("Rejections")
struct RejectionTests {
    static let registrationIDs1001 = (0...1000).map { "\"t\($0)\"" }.joined(separator: ",")
    static let longKey = String(repeating: "k", count: 65)
    static let longToken = String(repeating: "t", count: 4097)

    static let cases: [RejectionCase] = [
        RejectionCase(
            name: "not JSON", request: "{nope", reason: .invalidArgument, detail: "not JSON", undecodable: true),
        RejectionCase(
            name: "empty input", request: "", reason: .invalidArgument, detail: "not JSON", undecodable: true),
        RejectionCase(
            name: "JSON but not an object", request: "[1,2]", reason: .invalidArgument,
            detail: "the request must be a JSON object", undecodable: true),
        RejectionCase(
            name: "no target at all (legacy)", request: #"{"notification":{"title":"x"}}"#, reason: .invalidArgument,
            detail: "no target", undecodable: true),
        RejectionCase(
            name: "no target at all (v1)", request: #"{"message":{"notification":{"title":"x"}}}"#,
            reason: .invalidArgument, detail: "no target", undecodable: true),
        RejectionCase(
            name: "v1 token and fid", request: #"{"message":{"token":"t","fid":"f"}}"#, reason: .invalidArgument,
            detail: "message.token and message.fid: one target only"),
        RejectionCase(
            name: "v1 fid and topic", request: #"{"message":{"fid":"f","topic":"news"}}"#, reason: .invalidArgument,
            detail: "message.fid and message.topic: one target only"),
        RejectionCase(
            name: "v1 empty fid", request: #"{"message":{"fid":""}}"#, reason: .invalidArgument,
            detail: "message.fid: must not be empty"),
        RejectionCase(
            name: "v1 fid not a string", request: #"{"message":{"fid":5}}"#, reason: .invalidArgument,
            detail: "message.fid: must be a string"),
        RejectionCase(
            name: "v1 fid with a quote", request: #"{"message":{"fid":"a\"b"}}"#, reason: .invalidArgument,
            detail: "message.fid: must not hold control characters"),
        RejectionCase(
            name: "v1 fid over 4096 bytes", request: #"{"message":{"fid":"\#(longToken)"}}"#, reason: .invalidArgument,
            detail: "message.fid: 4097 bytes, over 4096"),
        RejectionCase(
            name: "legacy device group", request: #"{"notification_key":"group"}"#, reason: .unsupportedTarget,
            detail: "notification_key: device groups are not supported"),
        RejectionCase(
            name: "legacy condition and to", request: #"{"condition":"'a' in topics","to":"t"}"#,
            reason: .invalidArgument, detail: "to: give either condition or to, not both"),
        RejectionCase(
            name: "v1 topic and token", request: #"{"message":{"topic":"news","token":"t"}}"#,
            reason: .invalidArgument, detail: "message.token and message.topic: one target only"),
        RejectionCase(
            name: "legacy topic target, whole", request: #"{"to":"/topics/"}"#, reason: .invalidArgument,
            detail: "to: a topic name is 1 to 900 characters; this one is empty"),
        // The prefix is compared as bytes: a combining mark after it does not hide it.
        RejectionCase(
            name: "legacy topic target, then a combining mark", request: #"{"to":"/topics/́news"}"#,
            reason: .invalidArgument, detail: "to: a topic name holds only letters"),
        RejectionCase(
            name: "v1 topic name with a space", request: #"{"message":{"topic":"a b"}}"#, reason: .invalidArgument,
            detail: "message.topic: a topic name holds only letters, digits and -_.~%; this one holds \" \""),
        RejectionCase(
            name: "v1 condition every device would satisfy", request: #"{"message":{"condition":"!('a' in topics)"}}"#,
            reason: .invalidArgument, detail: "message.condition: it holds for a device in none of its topics"),
        RejectionCase(
            name: "legacy condition of six topics",
            request:
                #"{"condition":"'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics || 'e' in topics || 'f' in topics"}"#,
            reason: .invalidArgument, detail: "condition: it names more than 5 topics"),
        RejectionCase(
            name: "legacy condition with double quotes", request: #"{"condition":"\"a\" in topics"}"#,
            reason: .invalidArgument, detail: "condition: topic names are quoted with ', not \""),
        RejectionCase(
            name: "data key from", request: #"{"message":{"token":"t","data":{"from":"x"}}}"#, reason: .invalidDataKey,
            detail: "message.data.from: reserved key"),
        RejectionCase(
            name: "data key message_type", request: #"{"to":"t","data":{"message_type":"x"}}"#, reason: .invalidDataKey,
            detail: "data.message_type: reserved key"),
        RejectionCase(
            name: "data key starting with google", request: #"{"to":"t","data":{"google.c.a":"x"}}"#,
            reason: .invalidDataKey, detail: "data.google.c.a: reserved key"),
        RejectionCase(
            name: "data key starting with gcm", request: #"{"message":{"token":"t","data":{"gcm.n.e":"1"}}}"#,
            reason: .invalidDataKey, detail: "message.data.gcm.n.e: reserved key"),
        RejectionCase(
            name: "v1 data value not a string", request: #"{"message":{"token":"t","data":{"n":5}}}"#,
            reason: .invalidArgument, detail: "message.data.n: must be a string"),
        RejectionCase(
            name: "a bad type", request: #"{"to":"t","notification":{"title":5}}"#, reason: .invalidArgument,
            detail: "notification.title: must be a string"),
        RejectionCase(
            name: "a bad type in v1", request: #"{"message":{"token":"t","apns":{"headers":{"apns-priority":10}}}}"#,
            reason: .invalidArgument, detail: "message.apns.headers.apns-priority: must be a string"),
        RejectionCase(
            name: "a bad flag type", request: #"{"to":"t","content_available":"yes"}"#, reason: .invalidArgument,
            detail: "content_available: must be a boolean"),
        RejectionCase(
            name: "time_to_live over four weeks", request: #"{"to":"t","time_to_live":2419201}"#,
            reason: .invalidArgument, detail: "time_to_live: must be 0 to 2419200"),
        RejectionCase(
            name: "time_to_live negative", request: #"{"to":"t","time_to_live":-1}"#, reason: .invalidArgument,
            detail: "time_to_live: must be 0 to 2419200"),
        RejectionCase(
            name: "time_to_live not whole", request: #"{"to":"t","time_to_live":1.5}"#, reason: .invalidArgument,
            detail: "time_to_live: must be a whole number"),
        RejectionCase(
            name: "more than 1000 registration_ids", request: #"{"registration_ids":[\#(registrationIDs1001)]}"#,
            reason: .invalidArgument, detail: "registration_ids: must hold 1 to 1000 tokens"),
        RejectionCase(
            name: "empty registration_ids", request: #"{"registration_ids":[]}"#, reason: .invalidArgument,
            detail: "registration_ids: must hold 1 to 1000 tokens"),
        RejectionCase(
            name: "collapse key over 64 bytes", request: #"{"to":"t","collapse_key":"\#(longKey)"}"#,
            reason: .invalidArgument, detail: "collapse_key: collapse key is 65 bytes"),
        RejectionCase(
            name: "apns-collapse-id over 64 bytes",
            request: #"{"message":{"token":"t","apns":{"headers":{"apns-collapse-id":"\#(longKey)"}}}}"#,
            reason: .invalidArgument, detail: "message.apns.headers.apns-collapse-id: collapse key is 65 bytes"),
        RejectionCase(
            name: "bad priority", request: #"{"to":"t","priority":"urgent"}"#, reason: .invalidArgument,
            detail: "priority: must be \"high\" or \"normal\""),
        RejectionCase(
            name: "bad badge", request: #"{"to":"t","notification":{"badge":"many"}}"#, reason: .invalidArgument,
            detail: "notification.badge:"),
        RejectionCase(
            name: "loc args string that is not a JSON array",
            request: #"{"to":"t","notification":{"body_loc_args":"a,b"}}"#, reason: .invalidArgument,
            detail: "notification.body_loc_args:"),
        RejectionCase(
            name: "unknown v1 field", request: #"{"message":{"token":"t","notifications":{}}}"#,
            reason: .invalidArgument, detail: "message.notifications: unknown field"),
        RejectionCase(
            name: "image in message.fcm_options (it belongs in apns.fcm_options)",
            request: #"{"message":{"token":"t","fcm_options":{"image":"i"}}}"#, reason: .invalidArgument,
            detail: "message.fcm_options.image: unknown field"),
        RejectionCase(
            name: "of two unknown v1 fields the first in name order",
            request: #"{"message":{"token":"t","zz":1,"apnss":{}}}"#, reason: .invalidArgument,
            detail: "message.apnss: unknown field"),
        RejectionCase(
            name: "v1 token over 4096 bytes", request: #"{"message":{"token":"\#(longToken)"}}"#,
            reason: .invalidArgument, detail: "message.token: 4097 bytes, over 4096"),
        RejectionCase(
            name: "legacy to over 4096 bytes", request: #"{"to":"\#(longToken)"}"#, reason: .invalidArgument,
            detail: "to: 4097 bytes, over 4096"),
        RejectionCase(
            name: "a live activity token that is not a string",
            request: #"{"message":{"token":"t","apns":{"live_activity_token":5}}}"#, reason: .invalidArgument,
            detail: "message.apns.live_activity_token: must be a string"),
        RejectionCase(
            name: "an empty live activity token",
            request: #"{"message":{"token":"t","apns":{"live_activity_token":""}}}"#, reason: .invalidArgument,
            detail: "message.apns.live_activity_token: must not be empty"),
        RejectionCase(
            name: "a live activity token with a quote",
            request: #"{"message":{"token":"t","apns":{"live_activity_token":"a\"b"}}}"#, reason: .invalidArgument,
            detail: "message.apns.live_activity_token: must not hold control characters"),
        RejectionCase(
            name: "a token with a control character", request: #"{"message":{"token":"a\u0001b"}}"#,
            reason: .invalidArgument, detail: "message.token: must not hold control characters"),
        RejectionCase(
            name: "a token with a backslash", request: #"{"to":"a\\b"}"#, reason: .invalidArgument,
            detail: "to: must not hold control characters, quotes or backslashes"),
        RejectionCase(
            name: "a registration id over 4096 bytes", request: #"{"registration_ids":["a","\#(longToken)"]}"#,
            reason: .invalidArgument, detail: "registration_ids[1]: 4097 bytes, over 4096"),
        RejectionCase(
            name: "payload over the limit",
            request: #"{"to":"t","data":{"big":"\#(String(repeating: "x", count: 4100))"}}"#,
            reason: .payloadTooLarge, detail: "APNs payload is"),
        RejectionCase(
            name: "payload over a configured limit", request: #"{"to":"t","notification":{"title":"hello"}}"#,
            reason: .payloadTooLarge, detail: "APNs payload is", limit: 40),
    ]

    @Test("each reason, naming the field", arguments: cases)
    func rejection(_ testCase: RejectionCase) throws {
        let rejection = try #require(translate(testCase.request, limit: testCase.limit).rejection, "accepted")
        #expect(rejection.reason == testCase.reason)
        #expect(rejection.detail.hasPrefix(testCase.detail), "\(rejection.detail)")
        #expect(rejection.isUndecodable == testCase.undecodable)
    }

    @Test("every reason has a case")
    func allReasonsCovered() {
        // A device's own topics decide too_many_topics, not its request.
        #expect(Set(Self.cases.map(\.reason)) == Set(Rejection.Reason.allCases).subtracting([.tooManyTopics]))
    }

    @Test("reasons are spelled as the contract spells them")
    func spelling() {
        #expect(
            Rejection.Reason.allCases.map(\.rawValue).sorted()
                == [
                    "invalid_argument", "invalid_data_key", "payload_too_large", "too_many_topics",
                    "unsupported_target",
                ])
    }

    @Test("a payload exactly at the limit is accepted")
    func atLimit() throws {
        let base = try #require(translate(#"{"to":"t","data":{"k":""}}"#).message)
        let size = JSONValue.object(base.payload).jsonBytes.count
        let padding = String(repeating: "x", count: 4096 - size)
        let message = translate(#"{"to":"t","data":{"k":"\#(padding)"}}"#).message
        #expect(message.map { JSONValue.object($0.payload).jsonBytes.count } == 4096)
        #expect(translate(#"{"to":"t","data":{"k":"\#(padding)x"}}"#).rejection?.reason == .payloadTooLarge)
    }

    @Test(
        "a token over 4096 bytes is never echoed: the rejection names no targets, or only the readable ones",
        arguments: [
            (#"{"message":{"token":"\#(longToken)"}}"#, [String]()),
            (#"{"message":{"fid":"\#(longToken)"}}"#, []),
            (#"{"message":{"token":"\#(longToken)","fid":"f"}}"#, ["f"]),
            (#"{"to":"\#(longToken)"}"#, []),
            (#"{"registration_ids":["a","\#(longToken)"]}"#, ["a"]),
            (#"{"to":"\#(longToken)","priority":"urgent"}"#, []),
        ])
    func longTokenNotEchoed(request: String, tokens: [String]) throws {
        let rejection = try #require(translate(request).rejection)
        #expect(rejection.tokens == tokens)
        #expect(!rejection.detail.contains(Self.longToken.prefix(300)))
    }

    @Test(
        "a rejected request names each device target it can read: token, fid, or both when it names both",
        arguments: [
            (#"{"message":{"fid":"f","data":{"from":"x"}}}"#, ["f"]),
            (#"{"message":{"token":"t","data":{"from":"x"}}}"#, ["t"]),
            (#"{"message":{"token":"t","fid":"f"}}"#, ["t", "f"]),
            (#"{"message":{"fid":"f","topic":"news"}}"#, ["f"]),
            (#"{"message":{"token":"d","fid":"d"}}"#, ["d"]),
        ])
    func readableTargets(request: String, tokens: [String]) throws {
        #expect(try #require(translate(request).rejection).tokens == tokens)
    }

    @Test(
        "a detail quoting the input is cut to 256 bytes on a character boundary, ending in …",
        arguments: [
            String(repeating: "é", count: 300), String(repeating: "x", count: 300),
            "🙂" + String(repeating: "ab", count: 200),
        ])
    func detailCapped(quoted: String) {
        let rejection = Rejection(.invalidArgument, "field: got \(quoted)")
        #expect(rejection.detail.utf8.count <= Rejection.maximumDetailBytes)
        #expect(rejection.detail.hasPrefix("field: got ") && rejection.detail.hasSuffix("…"))
        #expect(("field: got " + quoted).hasPrefix(rejection.detail.dropLast()))
        var changed = rejection
        changed.detail = quoted
        #expect(changed.detail.utf8.count <= Rejection.maximumDetailBytes)
        #expect(Rejection(.invalidArgument, "short").detail == "short")
    }
}
