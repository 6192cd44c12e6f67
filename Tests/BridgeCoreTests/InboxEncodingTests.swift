import DeviceQueues
import FCMTranslation
import PropertyBased
import Testing

@testable import BridgeCore

@Suite("Inbox records")
struct InboxEncodingTests {
    static let apns = #"{"headers":{"apns-priority":"10"},"payload":{"aps":{"alert":"hi"},"gcm.message_id":"1:2:0"}}"#

    @Test("a message's inbox record is the contract's, written around its apns object")
    func message() throws {
        let message = QueuedMessage(
            id: "1:2:0", collapseKey: nil, sentAt: 1_700_000_000_000, expiresAt: nil, apns: Array(Self.apns.utf8))
        let record = written {
            OutputEncoder().inbox(.message(message), token: "device", at: 1_700_000_000_500, to: &$0)
        }
        let expected =
            #"{"apns":\#(Self.apns),"kind":"message","message_id":"1:2:0","sent_at":1700000000000,"token":"device"}"#
        #expect(record.value == Array(expected.utf8))
        #expect(record.topic == .inbox && record.key == Array("device".utf8) && record.timestamp == 1_700_000_000_500)
        #expect(
            record.headers.map { "\($0.name)=\(String(decoding: $0.value, as: UTF8.self))" } == [
                "message-id=1:2:0", "kind=message",
            ])
    }

    @Test("the size of a message's inbox record is known before it is written, for any send time, id and token")
    func bound() async {
        let plain = Gen.uint8(in: 0x20...0x7E).map {
            $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") ? UInt8(ascii: "a") : $0
        }
        await propertyCheck(
            count: 300,
            input: Gen.int64(in: Int64.min...Int64.max), Gen.int64(in: -1...Int64.max), plain.array(of: 1...200),
            Gen.int(in: 0...500)
        ) { sentAt, offset, token, apnsBytes in
            let id = MessageID.make(partition: 3, offset: offset, tokenIndex: 7)
            let message = QueuedMessage(
                id: id, collapseKey: nil, sentAt: sentAt, expiresAt: nil,
                apns: Array(repeating: UInt8(ascii: "x"), count: apnsBytes))
            let token = String(decoding: token, as: UTF8.self)
            let record = ByteWriter.array { InboxEncoding.writeMessage(message, token: token, to: &$0) }
            #expect(
                record.count
                    == InboxEncoding.messageBytes(
                        apnsBytes: apnsBytes, messageID: id, sentAt: sentAt, tokenBytes: token.utf8.count))
        }
    }

    @Test(
        "a stored value that is a whole inbox record (as older bridges stored it) gives back its apns object",
        arguments: [
            (#"{"apns":\#(apns),"kind":"message","message_id":"1:2:0","sent_at":5,"token":"t"}"#, apns),
            // A payload may hold the mark itself, as members of its own: the record's is the last.
            (
                #"{"apns":{"headers":{},"payload":{"data":",\"kind\":\"message\",","kind":"message","x":1}},"kind":"message","message_id":"1:2:0","sent_at":5,"token":"t"}"#,
                #"{"headers":{},"payload":{"data":",\"kind\":\"message\",","kind":"message","x":1}}"#
            ),
            // The mark right after the start: an empty object; one byte short of it: no mark.
            (#"{"apns":,"kind":"message","#, ""), (#"{"apns":,"kind":"message""#, #"{"apns":,"kind":"message""#),
            // Values stored since are the apns object, and anything else is left as it is.
            (apns, apns), (#"{"apns":{}}"#, #"{"apns":{}}"#), ("", ""),
        ])
    func stored(value: String, apns: String) {
        #expect(Self.storedAPNs(Array(value.utf8)) == Array(apns.utf8))
    }

    static func storedAPNs(_ value: [UInt8]) -> [UInt8] {
        value.withUnsafeBytes { Array($0[InboxEncoding.apnsRange(stored: $0)]) }
    }

    @Test("any message's whole inbox record gives back its apns object")
    func storedProperty() async {
        let pieces = Gen.element(of: [#","kind":"message","#, #"{"apns":"#, #"\""#, "x", "}"])
        await propertyCheck(count: 300, input: pieces.array(of: 0...12), Gen.int64(in: 0...Int64.max)) {
            pieces, sentAt in
            let apns = Array((#"{"headers":{},"payload":"# + pieces.compactMap { $0 }.joined() + "}").utf8)
            let message = QueuedMessage(id: "0:1:2", collapseKey: nil, sentAt: sentAt, expiresAt: nil, apns: apns)
            let record = ByteWriter.array { InboxEncoding.writeMessage(message, token: "t", to: &$0) }
            #expect(Self.storedAPNs(record) == apns)
        }
    }
}
