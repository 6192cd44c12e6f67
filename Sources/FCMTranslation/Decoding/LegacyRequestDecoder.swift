/// Decodes the legacy HTTP shape: `to` or `registration_ids`, `notification`, `data`, options.
/// Unknown fields are ignored, as the legacy API did (it had many Android-only ones).
enum LegacyRequestDecoder {
    static func decode(_ request: borrowing FieldReader<LegacyField>) throws(Rejection) -> SendRequest {
        var result = SendRequest(format: .legacy, tokens: try tokens(request), document: request.document)
        if result.tokens.isEmpty { result.topicTarget = try topicTarget(request) }
        try decodeOptions(request, into: &result)
        return result
    }

    /// Everything but the targets. Filled in place: when one function made and returned the
    /// request, the compiler copied it whole on return (about 600 instructions a request).
    private static func decodeOptions(_ request: borrowing FieldReader<LegacyField>, into result: inout SendRequest)
        throws(Rejection)
    {
        result.validateOnly = try request.bool(.dryRun) ?? false
        if let notification = try request.object(.notification, as: LegacyNotificationField.self) {
            result.notification = try decodeNotification(notification)
        }
        if let data = try request.object(.data, as: NoFields.self) {
            try RequestDecoder.checkDataKeys(data, ignoringNull: true)
            result.data = data.object
        }
        if let priority = try request.stringNode(.priority) {
            let document = request.document
            if document.string(priority, equals: "high") {
                result.priority = .high
            } else if document.string(priority, equals: "normal") {
                result.priority = .normal
            } else {
                throw request.invalid(.priority, "must be \"high\" or \"normal\", not \"\(document.text(priority))\"")
            }
        }
        result.contentAvailable = try request.bool(.contentAvailable) ?? false
        result.mutableContent = try request.bool(.mutableContent) ?? false
        result.collapseKey = try request.string(.collapseKey)
        try RequestDecoder.checkCollapseKey(result.collapseKey, path: "collapse_key")
        if let ttl = try request.integer(.timeToLive) {
            guard (0...RequestDecoder.maximumTimeToLive).contains(ttl) else {
                throw request.invalid(
                    .timeToLive, "must be 0 to \(RequestDecoder.maximumTimeToLive) seconds, not \(ttl)")
            }
            result.timeToLive = ttl
        }
    }

    /// The request's `condition`, or its `to` naming a topic: the target of a request whose
    /// ``tokens(_:)`` are none.
    private static func topicTarget(_ request: borrowing FieldReader<LegacyField>) throws(Rejection) -> TopicTarget {
        if let node = try request.stringNode(.to) {
            return try RequestDecoder.topicTarget(request.document.text(node), as: .topic, path: "to")
        }
        return try RequestDecoder.topicTarget(try request.string(.condition) ?? "", as: .condition, path: "condition")
    }

    /// The devices the request targets: none for a topic or condition target (see
    /// ``topicTarget(_:)``).
    private static func tokens(_ request: borrowing FieldReader<LegacyField>) throws(Rejection) -> DeviceTokens {
        if request.has(.condition) {
            for other: LegacyField in [.to, .registrationIDs, .notificationKey] where request.has(other) {
                throw request.invalid(other, "give either condition or \(other.name.description), not both")
            }
            return []
        }
        if request.has(.notificationKey) {
            throw Rejection(.unsupportedTarget, "notification_key: device groups are not supported")
        }
        if request.has(.to) && request.has(.registrationIDs) {
            throw request.invalid(.registrationIDs, "give either to or registration_ids, not both")
        }
        if let node = try request.stringNode(.to) {
            let document = request.document
            if document.string(node, hasPrefix: "/topics/") { return [] }
            let to = document.text(node)
            guard !to.isEmpty else { throw request.invalid(.to, "must not be empty") }
            try RequestDecoder.checkToken(to, key: "to", in: request)
            return DeviceTokens(to)
        }
        guard let value = request.value(.registrationIDs) else {
            throw RequestDecoder.noTarget("to or registration_ids")
        }
        let document = request.document
        guard document[value].kind == .array else {
            throw request.invalid(.registrationIDs, "must be an array of strings, not \(document[value].typeName)")
        }
        let elements = Array(document.elements(of: value))
        guard (1...RequestDecoder.maximumRegistrationIDs).contains(elements.count) else {
            throw request.invalid(
                .registrationIDs,
                "must hold 1 to \(RequestDecoder.maximumRegistrationIDs) tokens, not \(elements.count)")
        }
        var tokens: [String] = []
        tokens.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard document[element].kind == .string, document[element].start < document[element].end else {
                throw request.invalid("registration_ids[\(index)]", "must be a non-empty string")
            }
            let token = document.text(element)
            try RequestDecoder.checkToken(token, key: "registration_ids[\(index)]", in: request)
            tokens.append(token)
        }
        return DeviceTokens(tokens)
    }

    private static func decodeNotification(_ notification: borrowing FieldReader<LegacyNotificationField>)
        throws(Rejection) -> NotificationContent
    {
        var content = NotificationContent()
        content.title = try notification.stringNode(.title)
        content.body = try notification.stringNode(.body)
        content.subtitle = try notification.stringNode(.subtitle)
        content.sound = try notification.stringNode(.sound)
        content.clickAction = try notification.stringNode(.clickAction)
        content.titleLocKey = try notification.stringNode(.titleLocKey)
        content.titleLocArgs = try notification.stringList(.titleLocArgs)
        content.bodyLocKey = try notification.stringNode(.bodyLocKey)
        content.bodyLocArgs = try notification.stringList(.bodyLocArgs)
        content.image = try notification.stringNode(.image)
        if let badge = notification.value(.badge) {
            // A string in the legacy API; a number is taken as well.
            let document = notification.document
            let number: Int? =
                switch document[badge].kind {
                case .string: document.withUTF8(badge) { DecimalInteger.parse($0.trimmingSpaces) }
                case .number: DecimalInteger.parse(document.span(badge).buffer)
                default: nil
                }
            guard let number, number >= 0 else {
                throw notification.invalid(.badge, "must be a whole number of 0 or more, as a string")
            }
            content.badge = number
        }
        return content
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The bytes without leading and trailing spaces (U+0020).
    var trimmingSpaces: UnsafeBufferPointer<UInt8> {
        guard let first = firstIndex(where: { $0 != UInt8(ascii: " ") }),
            let last = lastIndex(where: { $0 != UInt8(ascii: " ") })
        else { return UnsafeBufferPointer(start: baseAddress, count: 0) }
        return UnsafeBufferPointer(rebasing: self[first...last])
    }
}
