import FCMTranslation
import Testing

@testable import BridgeCore

@Suite("Presence event decoding")
struct PresenceEventTests {
    static let longToken = String(repeating: "t", count: RequestDecoder.maximumTokenBytes + 1)
    static let ids1001 = (0...1000).map { "\"0:\($0):0\"" }.joined(separator: ",")

    @Test(
        "valid events",
        arguments: [
            (#"{"token":"d","event":"connect"}"#, PresenceEvent(token: "d", kind: .connect)),
            (#"{"token":"d","event":"disconnect"}"#, PresenceEvent(token: "d", kind: .disconnect)),
            (
                #"{"token":"d","event":"ack","message_ids":["0:1:0","0:2:0"]}"#,
                PresenceEvent(token: "d", kind: .acknowledge(messageIDs: ["0:1:0", "0:2:0"]))
            ),
            (
                #"{"token":"d","event":"ack","message_ids":["\#(String(repeating: "9", count: 36)):1","1:2:3:4","a:1:0","1::0","\u0001","","0:2:0"]}"#,
                PresenceEvent(token: "d", kind: .acknowledge(messageIDs: ["0:2:0"]))
            ),
            (
                #"{"token":"d","event":"ack","message_ids":["2147483647:9223372036854775807:999","0:0:0"]}"#,
                PresenceEvent(
                    token: "d", kind: .acknowledge(messageIDs: ["2147483647:9223372036854775807:999", "0:0:0"]))
            ),
        ])
    func valid(json: String, expected: PresenceEvent) throws {
        #expect(try PresenceEvent.decode(Array(json.utf8)).get() == expected)
    }

    @Test(
        "rejections name the field; only a readable, bounded token is echoed",
        arguments: [
            (#"{"token":"d","event":"sleep"}"#, "event:", ["d"], false),
            (#"{"token":"d","event":"ack"}"#, "message_ids:", ["d"], false),
            (#"{"token":"d","event":"ack","message_ids":[1]}"#, "message_ids:", ["d"], false),
            (
                #"{"token":"d","event":"ack","message_ids":[\#(ids1001)]}"#,
                "message_ids: at most 1000 ids per ack, got 1001", ["d"], false
            ),
            (#"{"token":"\#(longToken)","event":"connect"}"#, "token: 4097 bytes, over 4096", [], false),
            (#"{"token":"a\u0000b","event":"connect"}"#, "token: must not hold control characters", [], false),
            (#"{"token":"a\"b","event":"connect"}"#, "token: must not hold control characters, quotes", [], false),
            (#"{"event":"connect"}"#, "token:", [], true),
            ("[]", "presence event is not a JSON object", [], true),
        ])
    func rejected(json: String, detail: String, tokens: [String], undecodable: Bool) throws {
        let rejection = try #require(PresenceEvent.decode(Array(json.utf8)).failure)
        #expect(rejection.detail.hasPrefix(detail), "\(rejection.detail)")
        #expect(rejection.tokens == tokens)
        #expect(rejection.isUndecodable == undecodable)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let failure) = self { failure } else { nil } }
}
