/// Decodes the HTTP v1 shape: `{"validate_only": false, "message": {...}}`.
enum V1RequestDecoder {
    static func decode(_ request: FieldReader) throws(Rejection) -> SendRequest {
        try request.onlyKnown(["message", "validate_only"])
        guard let message = try request.object("message") else { throw RequestDecoder.noTarget("message") }
        try message.onlyKnown(["name", "token", "topic", "condition", "data", "notification", "android", "webpush", "apns", "fcm_options"])
        for target in ["topic", "condition"] where message.has(target) {
            throw Rejection(.unsupportedTarget, "\(message.path(target)): only token targets are supported")
        }
        guard let token = try message.string("token") else { throw RequestDecoder.noTarget("message.token") }
        guard !token.isEmpty else { throw message.invalid("token", "must not be empty") }

        var result = SendRequest(format: .v1, tokens: [token])
        result.validateOnly = try request.bool("validate_only") ?? false
        if let data = try message.stringMap("data") {
            result.data = data.mapValues(JSONValue.string)
            try RequestDecoder.checkDataKeys(result.data, path: message.path("data"))
        }
        if let notification = try message.object("notification") {
            try notification.onlyKnown(["title", "body", "image"])
            result.notification.title = try notification.string("title")
            result.notification.body = try notification.string("body")
            result.notification.image = try notification.string("image")
        }
        if let options = try message.object("fcm_options") {
            try options.onlyKnown(["analytics_label"])
            result.analyticsLabel = try options.string("analytics_label")
        }
        if let apns = try message.object("apns") {
            try decodeAPNs(apns, into: &result)
        }
        _ = try message.object("android")
        _ = try message.object("webpush")
        return result
    }

    private static func decodeAPNs(_ apns: FieldReader, into result: inout SendRequest) throws(Rejection) {
        try apns.onlyKnown(["headers", "payload", "fcm_options"])
        if let headers = try apns.stringMap("headers") {
            let path = apns.path("headers")
            if let priority = headers["apns-priority"], !["1", "5", "10"].contains(priority) {
                throw Rejection(.invalidArgument, "\(path).apns-priority: must be \"10\", \"5\" or \"1\"")
            }
            if let expiration = headers["apns-expiration"], Int(expiration) == nil {
                throw Rejection(.invalidArgument, "\(path).apns-expiration: must be a UNIX time in seconds")
            }
            try RequestDecoder.checkCollapseKey(headers["apns-collapse-id"], path: "\(path).apns-collapse-id")
            result.apnsHeaders = headers
        }
        if let payload = try apns.object("payload") {
            _ = try payload.object("aps")
            result.apnsPayload = payload.members
        }
        if let options = try apns.object("fcm_options") {
            try options.onlyKnown(["analytics_label", "image"])
            result.analyticsLabel = try options.string("analytics_label") ?? result.analyticsLabel
            result.apnsImage = try options.string("image")
        }
    }
}
