/// Decodes the HTTP v1 shape: `{"validate_only": false, "message": {...}}`.
enum V1RequestDecoder {
    private static let requestFields: [StaticString] = ["message", "validate_only"]
    private static let messageFields: [StaticString] = [
        "name", "token", "topic", "condition", "data", "notification", "android", "webpush", "apns", "fcm_options",
    ]
    private static let notificationFields: [StaticString] = ["title", "body", "image"]
    private static let optionsFields: [StaticString] = ["analytics_label"]
    private static let apnsFields: [StaticString] = ["headers", "payload", "fcm_options", "live_activity_token"]
    private static let apnsOptionsFields: [StaticString] = ["analytics_label", "image"]

    static func decode(_ request: FieldReader) throws(Rejection) -> SendRequest {
        try request.onlyKnown(requestFields)
        guard let message = try request.object("message") else { throw RequestDecoder.noTarget("message") }
        try message.onlyKnown(messageFields)
        for target: StaticString in ["topic", "condition"] where message.has(target) {
            throw Rejection(.unsupportedTarget, "\(message.path(target)): only token targets are supported")
        }
        guard let token = try message.string("token") else { throw RequestDecoder.noTarget("message.token") }
        guard !token.isEmpty else { throw message.invalid("token", "must not be empty") }
        try RequestDecoder.checkToken(token, key: "token", in: message)

        var result = SendRequest(format: .v1, tokens: [token], document: request.document)
        result.validateOnly = try request.bool("validate_only") ?? false
        if let data = try message.stringMap("data") {
            try RequestDecoder.checkDataKeys(data, ignoringNull: false)
            result.data = data.object
        }
        if let notification = try message.object("notification") {
            try notification.onlyKnown(notificationFields)
            result.notification.title = try notification.stringNode("title")
            result.notification.body = try notification.stringNode("body")
            result.notification.image = try notification.stringNode("image")
        }
        if let options = try message.object("fcm_options") {
            try options.onlyKnown(optionsFields)
            _ = try options.stringNode("analytics_label")
        }
        if let apns = try message.object("apns") {
            try decodeAPNs(apns, into: &result)
        }
        _ = try message.object("android")
        _ = try message.object("webpush")
        return result
    }

    private static func decodeAPNs(_ apns: FieldReader, into result: inout SendRequest) throws(Rejection) {
        try apns.onlyKnown(apnsFields)
        if let headers = try apns.stringMap("headers") {
            if let priority = headers.mapValue("apns-priority"), !["1", "5", "10"].contains(priority) {
                throw headers.invalid("apns-priority", "must be \"10\", \"5\" or \"1\"")
            }
            if let expiration = headers.mapValue("apns-expiration"), Int(expiration) == nil {
                throw headers.invalid("apns-expiration", "must be a UNIX time in seconds")
            }
            try RequestDecoder.checkCollapseKey(headers.mapValue("apns-collapse-id"), path: headers.path("apns-collapse-id"))
            result.apnsHeaders = headers.object
        }
        if let payload = try apns.object("payload") {
            _ = try payload.object("aps")
            result.apnsPayload = payload.object
        }
        if let token = try apns.stringNode("live_activity_token") {
            let text = apns.document.text(token)
            guard !text.isEmpty else { throw apns.invalid("live_activity_token", "must not be empty") }
            try RequestDecoder.checkToken(text, key: "live_activity_token", in: apns)
            result.liveActivityToken = token
        }
        if let options = try apns.object("fcm_options") {
            try options.onlyKnown(apnsOptionsFields)
            _ = try options.stringNode("analytics_label")
            result.apnsImage = try options.stringNode("image")
        }
    }
}
