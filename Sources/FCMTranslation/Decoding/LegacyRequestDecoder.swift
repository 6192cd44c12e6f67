/// Decodes the legacy HTTP shape: `to` or `registration_ids`, `notification`, `data`, options.
/// Unknown fields are ignored, as the legacy API did (it had many Android-only ones).
enum LegacyRequestDecoder {
    static func decode(_ request: FieldReader) throws(Rejection) -> SendRequest {
        var result = SendRequest(format: .legacy, tokens: try tokens(request), document: request.document)
        result.validateOnly = try request.bool("dry_run") ?? false
        if let notification = try request.object("notification") {
            result.notification = try decodeNotification(notification)
        }
        if let data = try request.object("data") {
            try RequestDecoder.checkDataKeys(data, ignoringNull: true)
            result.data = data.object
        }
        if let priority = try request.string("priority") {
            guard let value = SendRequest.Priority(rawValue: priority) else {
                throw request.invalid("priority", "must be \"high\" or \"normal\", not \"\(priority)\"")
            }
            result.priority = value
        }
        result.contentAvailable = try request.bool("content_available") ?? false
        result.mutableContent = try request.bool("mutable_content") ?? false
        result.collapseKey = try request.string("collapse_key")
        try RequestDecoder.checkCollapseKey(result.collapseKey, path: "collapse_key")
        if let ttl = try request.integer("time_to_live") {
            guard (0...RequestDecoder.maximumTimeToLive).contains(ttl) else {
                throw request.invalid("time_to_live", "must be 0 to \(RequestDecoder.maximumTimeToLive) seconds, not \(ttl)")
            }
            result.timeToLive = ttl
        }
        return result
    }

    private static func tokens(_ request: FieldReader) throws(Rejection) -> [String] {
        if request.has("condition") {
            throw Rejection(.unsupportedTarget, "condition: only token targets are supported")
        }
        if request.has("notification_key") {
            throw Rejection(.unsupportedTarget, "notification_key: device groups are not supported")
        }
        if request.has("to") && request.has("registration_ids") {
            throw request.invalid("registration_ids", "give either to or registration_ids, not both")
        }
        if let to = try request.string("to") {
            if to.hasPrefix("/topics/") { throw Rejection(.unsupportedTarget, "to: topic targets are not supported") }
            guard !to.isEmpty else { throw request.invalid("to", "must not be empty") }
            try RequestDecoder.checkToken(to, key: "to", in: request)
            return [to]
        }
        guard let value = request.value("registration_ids") else {
            throw RequestDecoder.noTarget("to or registration_ids")
        }
        let document = request.document
        guard document[value].kind == .array else {
            throw request.invalid("registration_ids", "must be an array of strings, not \(document[value].typeName)")
        }
        let elements = Array(document.elements(of: value))
        guard (1...RequestDecoder.maximumRegistrationIDs).contains(elements.count) else {
            throw request.invalid("registration_ids", "must hold 1 to \(RequestDecoder.maximumRegistrationIDs) tokens, not \(elements.count)")
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
        return tokens
    }

    private static func decodeNotification(_ notification: FieldReader) throws(Rejection) -> NotificationContent {
        var content = NotificationContent()
        content.title = try notification.stringNode("title")
        content.body = try notification.stringNode("body")
        content.subtitle = try notification.stringNode("subtitle")
        content.sound = try notification.stringNode("sound")
        content.clickAction = try notification.stringNode("click_action")
        content.titleLocKey = try notification.stringNode("title_loc_key")
        content.titleLocArgs = try notification.stringList("title_loc_args")
        content.bodyLocKey = try notification.stringNode("body_loc_key")
        content.bodyLocArgs = try notification.stringList("body_loc_args")
        content.image = try notification.stringNode("image")
        if let badge = notification.value("badge") {
            // A string in the legacy API; a number is taken as well.
            let document = notification.document
            let text: Substring? = switch document[badge].kind {
            case .string: document.text(badge).trimmingSpaces
            case .number: Substring(document.numberText(badge))
            default: nil
            }
            guard let text, let number = Int(text), number >= 0 else {
                throw notification.invalid("badge", "must be a whole number of 0 or more, as a string")
            }
            content.badge = number
        }
        return content
    }
}

extension String {
    /// The text without leading and trailing spaces (U+0020).
    var trimmingSpaces: Substring {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { $0 != UInt8(ascii: " ") }),
              let last = utf8.lastIndex(where: { $0 != UInt8(ascii: " ") }) else { return "" }
        return self[first...last]
    }
}
