/// What the device receives: APNs request headers and the APNs payload, as the JSON of an inbox
/// record's `apns` object.
public struct APNsMessage: Sendable, Hashable {
    /// `{"headers": {...}, "payload": {...}}`, members sorted by name: the `apns` object of an
    /// inbox record.
    public let jsonBytes: [UInt8]
    /// Where the payload is in ``jsonBytes``.
    let payloadRange: Range<Int>
    /// The `apns-collapse-id` header, the message's collapse key.
    public let collapseID: String?
    /// The `apns-expiration` header: a UNIX time in seconds, or `0` for now or never.
    public let expiration: Int64?

    /// The payload (the `aps` dictionary plus custom keys) as compact JSON: the bytes APNs
    /// receives, whose size the limit applies to.
    public var payloadJSON: ArraySlice<UInt8> { jsonBytes[payloadRange] }

    /// ``jsonBytes`` as a JSON tree, for inspection (the bridge itself only copies the bytes).
    public var json: JSONValue { (try? JSONParser.parse(jsonBytes)) ?? .null }

    /// The APNs headers, such as `apns-push-type` and `apns-priority`, for inspection.
    public var headers: [String: String] {
        (json["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// The payload as a JSON tree, for inspection.
    public var payload: [String: JSONValue] { json["payload"]?.objectValue ?? [:] }
}
