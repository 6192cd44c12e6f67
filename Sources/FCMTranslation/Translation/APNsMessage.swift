/// What the device receives: APNs request headers and the APNs payload.
public struct APNsMessage: Sendable, Hashable {
    /// APNs headers, such as `apns-push-type` and `apns-priority`.
    public var headers: [String: String]
    /// The payload: the `aps` dictionary plus custom keys.
    public let payload: [String: JSONValue]
    /// The payload as compact JSON: the bytes APNs receives, whose size the limit applies to.
    public let payloadJSON: [UInt8]

    /// Creates a message.
    public init(headers: [String: String], payload: [String: JSONValue]) {
        self.init(headers: headers, payload: payload, payloadJSON: JSONValue.object(payload).jsonBytes)
    }

    init(headers: [String: String], payload: [String: JSONValue], payloadJSON: [UInt8]) {
        self.headers = headers
        self.payload = payload
        self.payloadJSON = payloadJSON
    }

    /// `{"headers": {...}, "payload": {...}}`, the `apns` object of an inbox record.
    public var json: JSONValue {
        .object(["headers": .object(headers.mapValues(JSONValue.string)), "payload": .object(payload)])
    }

    /// ``json`` as compact JSON bytes, reusing the payload's bytes.
    public var jsonBytes: [UInt8] {
        var output = Array(#"{"headers":"#.utf8)
        output.reserveCapacity(payloadJSON.count + 256)
        JSONValue.object(headers.mapValues(JSONValue.string)).write(to: &output)
        output.append(contentsOf: #","payload":"#.utf8)
        output.append(contentsOf: payloadJSON)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
