/// Decodes the HTTP v1 shape: `{"validate_only": false, "message": {...}}`.
enum V1RequestDecoder {
    static func decode(_ request: borrowing FieldReader<V1RequestField>) throws(Rejection) -> SendRequest {
        try request.onlyKnown()
        guard let message = try request.object(.message, as: V1MessageField.self) else {
            throw RequestDecoder.noTarget("message")
        }
        try message.onlyKnown()
        var result: SendRequest
        switch try target(of: message) {
        case .device(let token):
            result = SendRequest(format: .v1, tokens: DeviceTokens(token), document: request.document)
        case .topics(let target):
            result = SendRequest(format: .v1, tokens: [], document: request.document)
            result.topicTarget = target
        }
        result.validateOnly = try request.bool(.validateOnly) ?? false
        if let data = try message.stringMap(.data) {
            try RequestDecoder.checkDataKeys(data, ignoringNull: false)
            result.data = data.object
        }
        if let notification = try message.object(.notification, as: V1NotificationField.self) {
            try notification.onlyKnown()
            result.notification.title = try notification.stringNode(.title)
            result.notification.body = try notification.stringNode(.body)
            result.notification.image = try notification.stringNode(.image)
        }
        if let options = try message.object(.fcmOptions, as: V1OptionsField.self) {
            try options.onlyKnown()
            _ = try options.stringNode(.analyticsLabel)
        }
        if let apns = try message.object(.apns, as: APNsField.self) {
            try decodeAPNs(apns, into: &result)
        }
        _ = try message.object(.android, as: NoFields.self)
        _ = try message.object(.webpush, as: NoFields.self)
        return result
    }

    private enum Target {
        case device(String)
        case topics(TopicTarget)
    }

    /// The message's one target: a device (`token`, or `fid`, the device's Firebase Installation
    /// ID, which Firebase's Admin SDKs send in place of a token, checked as a token is), a
    /// `topic`, or a `condition`.
    private static func target(of message: borrowing FieldReader<V1MessageField>) throws(Rejection) -> Target {
        var target: V1MessageField?
        for field: V1MessageField in [.token, .fid, .topic, .condition] where message.has(field) {
            if let first = target {
                throw Rejection(.invalidArgument, "\(message.path(first)) and \(message.path(field)): one target only")
            }
            target = field
        }
        guard let target else { throw RequestDecoder.noTarget("message.token, fid, topic or condition") }
        let given = try message.string(target) ?? ""
        guard target == .token || target == .fid else {
            return .topics(
                try RequestDecoder.topicTarget(
                    given, as: target == .topic ? .topic : .condition, path: message.path(target)))
        }
        guard !given.isEmpty else { throw message.invalid(target, "must not be empty") }
        try RequestDecoder.checkToken(given, key: target.name.description, in: message)
        return .device(given)
    }

    private static func decodeAPNs(_ apns: borrowing FieldReader<APNsField>, into result: inout SendRequest)
        throws(Rejection)
    {
        try apns.onlyKnown()
        if let headers = try apns.stringMap(.headers) {
            if let priority = headers.mapValue("apns-priority"), !["1", "5", "10"].contains(priority) {
                throw headers.invalid("apns-priority", "must be \"10\", \"5\" or \"1\"")
            }
            if let expiration = headers.member(named: "apns-expiration"),
                !(0...RequestDecoder.latestExpiration).contains(headers.document.integer(expiration) ?? -1)
            {
                throw headers.invalid(
                    "apns-expiration", "must be a UNIX time in seconds, not \"\(headers.document.text(expiration))\"")
            }
            try RequestDecoder.checkCollapseKey(
                headers.mapValue("apns-collapse-id"), path: headers.path.describing("apns-collapse-id"))
            result.apnsHeaders = headers.object
        }
        if let payload = try apns.object(.payload, as: APNsPayloadField.self) {
            _ = try payload.object(.aps, as: NoFields.self)
            result.apnsPayload = payload.object
        }
        if let token = try apns.stringNode(.liveActivityToken) {
            let text = apns.document.text(token)
            guard !text.isEmpty else { throw apns.invalid(.liveActivityToken, "must not be empty") }
            try RequestDecoder.checkToken(text, key: "live_activity_token", in: apns)
            result.liveActivityToken = token
        }
        if let options = try apns.object(.fcmOptions, as: APNsOptionsField.self) {
            try options.onlyKnown()
            _ = try options.stringNode(.analyticsLabel)
            result.apnsImage = try options.stringNode(.image)
        }
    }
}
