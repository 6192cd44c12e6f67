/// Decodes the legacy HTTP shape: `to` or `registration_ids`, `notification`, `data`, options.
/// Unknown fields are ignored, as the legacy API did (it had many Android-only ones).
enum LegacyRequestDecoder {
    static func decode(_ request: FieldReader) throws(Rejection) -> SendRequest {
        var result = SendRequest(format: .legacy, tokens: try tokens(request))
        result.validateOnly = try request.bool("dry_run") ?? false
        if let notification = try request.object("notification") {
            result.notification = try decodeNotification(notification)
        }
        if let data = try request.object("data") {
            result.data = data.members.filter { $0.value != .null }
            try RequestDecoder.checkDataKeys(result.data, path: "data")
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
            return [to]
        }
        guard let value = request.value("registration_ids") else {
            throw RequestDecoder.noTarget("to or registration_ids")
        }
        guard case .array(let elements) = value else {
            throw request.invalid("registration_ids", "must be an array of strings, not \(value.typeName)")
        }
        guard (1...RequestDecoder.maximumRegistrationIDs).contains(elements.count) else {
            throw request.invalid("registration_ids", "must hold 1 to \(RequestDecoder.maximumRegistrationIDs) tokens, not \(elements.count)")
        }
        var tokens: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let token) = element, !token.isEmpty else {
                throw request.invalid("registration_ids[\(index)]", "must be a non-empty string")
            }
            tokens.append(token)
        }
        return tokens
    }

    private static func decodeNotification(_ notification: FieldReader) throws(Rejection) -> NotificationContent {
        var content = NotificationContent()
        content.title = try notification.string("title")
        content.body = try notification.string("body")
        content.subtitle = try notification.string("subtitle")
        content.sound = try notification.string("sound")
        content.clickAction = try notification.string("click_action")
        content.titleLocKey = try notification.string("title_loc_key")
        content.titleLocArgs = try notification.stringList("title_loc_args")
        content.bodyLocKey = try notification.string("body_loc_key")
        content.bodyLocArgs = try notification.stringList("body_loc_args")
        content.image = try notification.string("image")
        if let badge = notification.value("badge") {
            // A string in the legacy API; a number is taken as well.
            let text: String? = switch badge {
            case .string(let text): text.trimmingSpaces
            case .number(let text): text
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
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
