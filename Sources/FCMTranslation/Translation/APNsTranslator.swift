/// Turns a ``SendRequest`` into the ``APNsMessage`` a device receives, by the contract's
/// translation table.
public struct APNsTranslator: Sendable {
    /// The default APNs payload limit, in bytes.
    public static let defaultPayloadLimit = 4096

    /// `apns-topic` when the request's headers give none; no header when nil.
    public var bundleID: String?
    /// Payloads over this many bytes are rejected as `payload_too_large`.
    public var payloadLimit: Int

    /// Creates a translator.
    public init(bundleID: String? = nil, payloadLimit: Int = APNsTranslator.defaultPayloadLimit) {
        self.bundleID = bundleID
        self.payloadLimit = payloadLimit
    }

    /// Translates a request for one device.
    /// - Parameters:
    ///   - messageID: the message's id, sent as `gcm.message_id`.
    ///   - sentAt: the send time in milliseconds since the epoch, for `apns-expiration`.
    public func translate(_ request: SendRequest, messageID: String, sentAt: Int64) -> Result<APNsMessage, Rejection> {
        let payload = self.payload(for: request, messageID: messageID)
        let payloadJSON = JSONValue.object(payload).jsonBytes
        guard payloadJSON.count <= payloadLimit else {
            return .failure(Rejection(.payloadTooLarge, "APNs payload is \(payloadJSON.count) bytes, over the \(payloadLimit)-byte limit"))
        }
        let headers = headers(for: request, aps: payload["aps"]?.objectValue ?? [:], sentAt: sentAt)
        return .success(APNsMessage(headers: headers, payload: payload, payloadJSON: payloadJSON))
    }

    private func payload(for request: SendRequest, messageID: String) -> [String: JSONValue] {
        let notification = request.notification
        var alert: [String: JSONValue] = [:]
        alert["title"] = notification.title.map(JSONValue.string)
        alert["body"] = notification.body.map(JSONValue.string)
        alert["subtitle"] = notification.subtitle.map(JSONValue.string)
        alert["title-loc-key"] = notification.titleLocKey.map(JSONValue.string)
        alert["title-loc-args"] = notification.titleLocArgs.map { .array($0.map(JSONValue.string)) }
        alert["loc-key"] = notification.bodyLocKey.map(JSONValue.string)
        alert["loc-args"] = notification.bodyLocArgs.map { .array($0.map(JSONValue.string)) }

        var aps: [String: JSONValue] = [:]
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        aps["badge"] = notification.badge.map(JSONValue.integer)
        aps["sound"] = notification.sound.map(JSONValue.string)
        aps["category"] = notification.clickAction.map(JSONValue.string)
        if request.contentAvailable { aps["content-available"] = .integer(1) }
        if request.mutableContent { aps["mutable-content"] = .integer(1) }

        var payload = request.data
        if let image = request.apnsImage ?? notification.image {
            payload["fcm_options"] = .object(["image": .string(image)])
            aps["mutable-content"] = .integer(1)
        }
        payload["gcm.message_id"] = .string(messageID)
        for (key, value) in request.apnsPayload where key != "aps" {
            payload[key] = value
        }
        if let overrides = request.apnsPayload["aps"]?.objectValue {
            aps.merge(overrides) { $1 }
        }
        payload["aps"] = .object(aps)
        return payload
    }

    private func headers(for request: SendRequest, aps: [String: JSONValue], sentAt: Int64) -> [String: String] {
        var headers: [String: String] = [:]
        let isBackground = aps["content-available"].map { $0 != .integer(0) && $0 != .bool(false) } == true
            && aps["alert"] == nil && aps["badge"] == nil && aps["sound"] == nil
        headers["apns-push-type"] = isBackground ? "background" : "alert"
        headers["apns-priority"] = switch (isBackground, request.priority) {
        case (true, _), (false, .normal): "5"
        case (false, .high), (false, nil): "10"
        }
        headers["apns-collapse-id"] = request.collapseKey
        if let ttl = request.timeToLive {
            headers["apns-expiration"] = ttl == 0 ? "0" : String(sentAt / 1000 + Int64(ttl))
        }
        headers["apns-topic"] = bundleID
        headers.merge(request.apnsHeaders) { $1 }
        return headers
    }
}
