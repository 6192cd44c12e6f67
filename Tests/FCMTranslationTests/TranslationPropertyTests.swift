import PropertyBased
import Testing

@testable import FCMTranslation

@Suite("Translation properties")
struct TranslationPropertyTests {
    /// Text with quotes, escapes, control characters and non-ASCII, as users write it.
    static let text = Gen.unicodeScalar(in: "\u{01}"..."\u{2FF}").map { Character($0) }.string(of: 0...40)
    static let dataKey = Gen.lowercaseLetter.string(of: 1...12).map { "k" + $0 }
    static let dataValue = Gen.unicodeScalar(in: " "..."\u{7FF}").map { Character($0) }.string(of: 0...600)

    @Test("random valid requests translate, and fit the payload limit or are rejected as payload_too_large")
    func validRequests() async {
        await propertyCheck(
            count: 300,
            input: Self.text, Self.text, Gen.int(in: 0...999),
            Self.dataKey.array(of: 0...8), Self.dataValue, Gen.int(in: 0...RequestDecoder.maximumTimeToLive), Gen.bool
        ) { title, body, badge, dataKeys, dataValue, ttl, legacy in
            let data = Dictionary(dataKeys.map { ($0, JSONValue.string(dataValue)) }) { $1 }
            let request: JSONValue =
                legacy
                ? .object([
                    "to": .string("token"), "time_to_live": .integer(ttl), "data": .object(data),
                    "notification": .object([
                        "title": .string(title), "body": .string(body), "badge": .string(String(badge)),
                    ]),
                ])
                : .object([
                    "message": .object([
                        "token": .string("token"), "data": .object(data),
                        "notification": .object(["title": .string(title), "body": .string(body)]),
                        "apns": .object(["payload": .object(["aps": .object(["badge": .integer(badge)])])]),
                    ])
                ])
            switch translate(request.jsonString) {
            case .success(let message):
                let bytes = JSONValue.object(message.payload).jsonBytes
                #expect(bytes.count <= APNsTranslator.defaultPayloadLimit)
                #expect(message.payload["aps"]?["alert"]?["title"] == .string(title))
                #expect(message.payload["aps"]?["badge"] == .integer(badge))
                #expect((try? JSONParser.parse(bytes)) == .object(message.payload))
            case .failure(let rejection):
                #expect(rejection.reason == .payloadTooLarge, "\(rejection)")
            }
        }
    }

    @Test("random bytes are rejected as undecodable, never crash")
    func randomBytes() async {
        await propertyCheck(count: 1000, input: Gen.uint8(in: 0...255).array(of: 0...200)) { bytes in
            let rejection = translate(String(decoding: bytes, as: UTF8.self)).rejection
            #expect(rejection?.isUndecodable == true)
            #expect(RequestDecoder.decode(bytes).rejectionIsUndecodable)
        }
    }

    @Test("damaged valid requests are accepted or rejected, never crash")
    func damagedRequests() async {
        let valid = Array(
            #"{"message":{"token":"t","notification":{"title":"x"},"data":{"k":"v"},"apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"badge":1}}}}}"#
                .utf8)
        await propertyCheck(count: 1000, input: Gen.int(in: 0...(valid.count - 1)), Gen.uint8(in: 0...255)) {
            index, byte in
            var damaged = valid
            damaged[index] = byte
            switch translate(String(decoding: damaged, as: UTF8.self)) {
            case .success(let message): #expect(message.payload["gcm.message_id"] == .string("m-1"))
            case .failure(let rejection): #expect(!rejection.detail.isEmpty)
            }
        }
    }
}

extension Result where Success == SendRequest, Failure == Rejection {
    var rejectionIsUndecodable: Bool {
        if case .failure(let rejection) = self { return rejection.isUndecodable }
        return false
    }
}
