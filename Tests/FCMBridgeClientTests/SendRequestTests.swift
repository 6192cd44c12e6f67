import FCMBridgeClient
import Foundation
import Testing

@Suite("Send requests")
struct SendRequestTests {
    /// The request as the bridge reads it: its JSON, members sorted by name.
    private func encoded(_ request: SendRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(request), as: UTF8.self)
    }

    @Test("a message by FID names the device as message.fid, and is keyed by it")
    func byFID() throws {
        let request = SendRequest.v1(V1Message(fid: "fid-1", notification: .init(title: "T")))
        #expect(try encoded(request) == #"{"message":{"fid":"fid-1","notification":{"title":"T"}}}"#)
        #expect(request.token == "fid-1")
    }

    @Test("a message by token names the device as message.token, and is keyed by it")
    func byToken() throws {
        let request = SendRequest.v1(V1Message(token: "t-1", data: ["k": "v"]), validateOnly: true)
        #expect(try encoded(request) == #"{"message":{"data":{"k":"v"},"token":"t-1"},"validate_only":true}"#)
        #expect(request.token == "t-1")
    }

    @Test(
        "a request is keyed by its one device, and has no key otherwise",
        arguments: [
            (SendRequest.legacy(LegacyMessage(to: "t-1")), "t-1"),
            (.legacy(LegacyMessage(to: "/topics/news")), nil),
            (.legacy(LegacyMessage(registrationIDs: ["a"])), "a"),
            (.legacy(LegacyMessage(registrationIDs: ["a", "b"])), nil),
        ] as [(SendRequest, String?)])
    func key(request: SendRequest, key: String?) {
        #expect(request.token == key)
    }
}
