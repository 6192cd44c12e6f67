import Testing

@testable import FCMTranslation

/// Decodes and translates a request given as JSON text, for one device.
func translate(_ json: String, bundleID: String? = nil, limit: Int = 4096, sentAt: Int64 = 1_700_000_000_000) -> Result<
    APNsMessage, Rejection
> {
    RequestDecoder.decode(Array(json.utf8)).flatMap {
        APNsTranslator(bundleID: bundleID, payloadLimit: limit).translate($0, messageID: "m-1", sentAt: sentAt)
    }
}

/// Parses expected JSON written in a test.
func json(_ text: String) -> JSONValue {
    (try? JSONParser.parse(Array(text.utf8))) ?? .string("<invalid test JSON: \(text)>")
}

extension Result where Success == APNsMessage, Failure == Rejection {
    var message: APNsMessage? { try? get() }
    var rejection: Rejection? {
        if case .failure(let rejection) = self { return rejection }
        return nil
    }
}
