import FCMTranslation

/// Send requests as app servers write them.
enum Requests {
    /// A legacy request for one token.
    static func legacy(
        _ token: String, title: String = "hi", collapseKey: String? = nil, ttl: Int? = nil,
        extra: [String: JSONValue] = [:]
    ) -> String {
        var fields: [String: JSONValue] = ["to": .string(token), "notification": .object(["title": .string(title)])]
        fields["collapse_key"] = collapseKey.map(JSONValue.string)
        fields["time_to_live"] = ttl.map(JSONValue.integer)
        return JSONValue.object(fields.merging(extra) { $1 }).jsonString
    }

    /// An HTTP v1 request for one token.
    static func v1(_ token: String, title: String = "hi", validateOnly: Bool = false) -> String {
        JSONValue.object([
            "validate_only": .bool(validateOnly),
            "message": .object(["token": .string(token), "notification": .object(["title": .string(title)])]),
        ]).jsonString
    }
}
