/// What the device receives: APNs request headers and the APNs payload.
public struct APNsMessage: Sendable, Hashable {
    /// APNs headers, such as `apns-push-type` and `apns-priority`.
    public var headers: [String: String]
    /// The payload: the `aps` dictionary plus custom keys.
    public var payload: [String: JSONValue]

    /// Creates a message.
    public init(headers: [String: String], payload: [String: JSONValue]) {
        self.headers = headers
        self.payload = payload
    }

    /// `{"headers": {...}, "payload": {...}}`, the `apns` object of an inbox record.
    public var json: JSONValue {
        .object(["headers": .object(headers.mapValues(JSONValue.string)), "payload": .object(payload)])
    }
}
