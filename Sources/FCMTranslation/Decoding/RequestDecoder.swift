/// Decodes the bytes of an `fcm.send` record into a ``SendRequest``, in either API shape, or
/// says why not.
public enum RequestDecoder {
    /// APNs' limit on `apns-collapse-id`, which FCM applies to collapse keys.
    public static let maximumCollapseKeyBytes = 64
    /// The most tokens a legacy `registration_ids` may hold.
    public static let maximumRegistrationIDs = 1000
    /// The longest legacy `time_to_live`: four weeks.
    public static let maximumTimeToLive = 2_419_200

    /// Decodes a request. Not JSON, not an object, or no target at all: an undecodable rejection.
    public static func decode(_ bytes: some Collection<UInt8>) -> Result<SendRequest, Rejection> {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            return .failure(Rejection(.invalidArgument, "not JSON: \(error)", isUndecodable: true))
        }
        guard case .object(let members) = json else {
            return .failure(Rejection(.invalidArgument, "the request must be a JSON object, not \(json.typeName)", isUndecodable: true))
        }
        let request = FieldReader(members, path: "")
        return Result { () throws(Rejection) -> SendRequest in
            if request.has("message") || request.has("validate_only") {
                return try V1RequestDecoder.decode(request)
            }
            return try LegacyRequestDecoder.decode(request)
        }.mapError { rejection in
            var rejection = rejection
            rejection.tokens = readableTokens(members)
            return rejection
        }
    }

    /// The targets of a request that was not accepted, as far as they can be read.
    static func readableTokens(_ members: [String: JSONValue]) -> [String] {
        if let token = members["message"]?["token"]?.stringValue { return [token] }
        if let token = members["to"]?.stringValue { return [token] }
        if case .array(let ids)? = members["registration_ids"] { return ids.compactMap(\.stringValue) }
        return []
    }

    /// Rejects data keys FCM reserves: `from`, `message_type`, and any starting with `google` or `gcm`.
    static func checkDataKeys(_ data: [String: JSONValue], path: String) throws(Rejection) {
        for key in data.keys.sorted() {
            let lowercased = key.lowercased()
            if key == "from" || key == "message_type" || lowercased.hasPrefix("google") || lowercased.hasPrefix("gcm") {
                throw Rejection(.invalidDataKey, "\(path).\(key): reserved key")
            }
        }
    }

    static func checkCollapseKey(_ key: String?, path: String) throws(Rejection) {
        if let key, key.utf8.count > maximumCollapseKeyBytes {
            throw Rejection(.invalidArgument, "\(path): collapse key is \(key.utf8.count) bytes, over \(maximumCollapseKeyBytes)")
        }
    }

    static func noTarget(_ fields: String) -> Rejection {
        Rejection(.invalidArgument, "no target: the request names no \(fields)", isUndecodable: true)
    }
}
