import BridgeCore
import FCMTranslation

/// The decoder and translator: a send record's value as the intake admits it. Every accepted
/// message's inbox record is a JSON object that fits an output record, and every translated
/// APNs payload keeps within the payload limit.
enum RequestHarness {
    static let translator = APNsTranslator(bundleID: "com.example.fuzz")
    static let intake = SendIntake(translator: translator, limits: Fuzzing.limits)
    static let time: Int64 = 1_700_000_000_000

    static func run(_ input: ArraySlice<UInt8>) {
        let result = intake.admit(Array(input), partition: 0, offset: 0, time: time)
        for routed in result.accepted {
            guard case .send(let message) = routed.input else {
                fatalError("finding: a send request admitted as \(routed.input)")
            }
            Fuzzing.expectJSONObject(message.withAPNs { Array($0) }, "an apns object")
        }
        guard case .success(let request) = RequestDecoder.decode(input) else { return }
        for index in request.tokens.indices.prefix(3) {
            guard case .success(let message) = translator.translate(request, messageID: "0:0:\(index)", sentAt: time)
            else { continue }
            Fuzzing.expect(
                message.payloadJSON.count <= translator.payloadLimit,
                "an APNs payload of \(message.payloadJSON.count) bytes")
            Fuzzing.expectJSONObject(message.jsonBytes, "a translated message")
        }
    }
}
