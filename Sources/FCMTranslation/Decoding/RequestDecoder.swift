/// Decodes the bytes of an `fcm.send` record into a ``SendRequest``, in either API shape, or
/// says why not.
public enum RequestDecoder {
    /// APNs' limit on `apns-collapse-id`, which FCM applies to collapse keys.
    public static let maximumCollapseKeyBytes = 64
    /// The most tokens a legacy `registration_ids` may hold.
    public static let maximumRegistrationIDs = 1000
    /// The longest device token, in bytes (FCM's are about 160): a token is echoed in status and
    /// inbox keys and values, so its length bounds theirs.
    public static let maximumTokenBytes = 4096
    /// The latest `apns-expiration`, in seconds since the epoch: the latest whose milliseconds
    /// fit an `Int64`.
    public static let latestExpiration = Int(Int64.max / 1000) - 1
    /// The longest legacy `time_to_live`: four weeks.
    public static let maximumTimeToLive = 2_419_200

    /// Decodes a request. Not JSON, not an object, or no target at all: an undecodable rejection.
    public static func decode(_ bytes: some Collection<UInt8>) -> Result<SendRequest, Rejection> {
        decode(Array(bytes))
    }

    /// Decodes a request. Not JSON, not an object, or no target at all: an undecodable rejection.
    public static func decode(_ bytes: [UInt8]) -> Result<SendRequest, Rejection> {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// Decodes a request from bytes it copies. Not JSON, not an object, or no target at all: an
    /// undecodable rejection.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<SendRequest, Rejection> {
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            return .failure(Rejection(.invalidArgument, "not JSON: \(error)", isUndecodable: true))
        }
        let root = document[document.root]
        guard root.kind == .object else {
            return .failure(
                Rejection(
                    .invalidArgument, "the request must be a JSON object, not \(root.typeName)", isUndecodable: true))
        }
        let legacy = FieldReader<LegacyField>(document: document, object: document.root, path: .root)
        do throws(Rejection) {
            // The v1 fields are not legacy ones: a root with only legacy members is legacy.
            if legacy.hasUnknown {
                let v1 = FieldReader<V1RequestField>(document: document, object: document.root, path: .root)
                if v1.has(.message) || v1.has(.validateOnly) {
                    return .success(try V1RequestDecoder.decode(v1))
                }
            }
            return .success(try LegacyRequestDecoder.decode(legacy))
        } catch {
            var rejection = error
            rejection.tokens = readableTokens(document)
            if rejection.tokens.isEmpty { rejection.topicTarget = readableTopicTarget(document) }
            return .failure(rejection)
        }
    }

    /// The targets of a request that was not accepted, as far as they can be read; never a
    /// token with a ``tokenProblem(_:)``. None for a `registration_ids` over the limit: FCM
    /// rejects such a request as a whole, and one rejection per token would let one record make
    /// any number of outputs.
    static func readableTokens(_ document: JSONDocument) -> [String] {
        let v1 = FieldReader<V1RequestField>(document: document, object: document.root, path: .root)
        let legacy = FieldReader<LegacyField>(document: document, object: document.root, path: .root)
        var tokens: [String] = []
        if let message = try? v1.object(.message, as: V1MessageField.self) {
            tokens = [V1MessageField.token, .fid].compactMap { try? message.string($0) }
            // A message naming one device as both token and fid is rejected once.
            if tokens.count == 2 && tokens[0] == tokens[1] { tokens.removeLast() }
        } else if let token = try? legacy.string(.to), !token.utf8.starts(with: "/topics/".utf8) {
            tokens = [token]
        } else if let ids = legacy.value(.registrationIDs), document[ids].kind == .array {
            let elements = Array(document.elements(of: ids).prefix(maximumRegistrationIDs + 1))
            guard elements.count <= maximumRegistrationIDs else { return [] }
            tokens = elements.filter { document[$0].kind == .string }.map(document.text)
        }
        return tokens.filter { tokenProblem($0) == nil }
    }

    /// The topic or condition target of a request that was not accepted, when it is a valid one.
    static func readableTopicTarget(_ document: JSONDocument) -> TopicTarget? {
        let v1 = FieldReader<V1RequestField>(document: document, object: document.root, path: .root)
        let legacy = FieldReader<LegacyField>(document: document, object: document.root, path: .root)
        var given: (text: String, kind: TopicTarget.Kind)?
        if let message = try? v1.object(.message, as: V1MessageField.self) {
            if let topic = try? message.string(.topic) {
                given = (topic, .topic)
            } else if let condition = try? message.string(.condition) {
                given = (condition, .condition)
            }
        } else if let to = try? legacy.string(.to), to.utf8.starts(with: "/topics/".utf8) {
            given = (to, .topic)
        } else if let condition = try? legacy.string(.condition) {
            given = (condition, .condition)
        }
        guard let given, case .success(let target) = TopicTarget.parse(given.text, as: given.kind) else { return nil }
        return target
    }

    /// The topic or condition target `given`, or `invalid_argument` naming `path` when FCM would
    /// refuse it.
    static func topicTarget(_ given: String, as kind: TopicTarget.Kind, path: @autoclosure () -> String)
        throws(Rejection) -> TopicTarget
    {
        switch TopicTarget.parse(given, as: kind) {
        case .success(let target): return target
        case .failure(let error): throw Rejection(.invalidArgument, "\(path()): \(error)")
        }
    }

    /// Rejects a token with a ``tokenProblem(_:)``, naming `key` of `reader` (made only then).
    static func checkToken(
        _ token: String, key: @autoclosure () -> String, in reader: borrowing FieldReader<some FieldName>
    ) throws(Rejection) {
        if let problem = tokenProblem(token) { throw reader.invalid(key(), problem) }
    }

    /// What makes `token` unusable, if anything: over ``maximumTokenBytes``, or holding a
    /// character JSON must escape (a control character, `"` or `\`). A token is echoed in keys
    /// and in JSON values, so its size bounds theirs; FCM's tokens hold none of these.
    public static func tokenProblem(_ token: String) -> String? {
        let count = token.utf8.count
        if count > maximumTokenBytes { return "\(count) bytes, over \(maximumTokenBytes)" }
        // Over the contiguous bytes of a native string (every token read from a record), eight
        // at a time; a String.UTF8View walked byte by byte costs several times more.
        let needsEscapes =
            token.utf8.withContiguousStorageIfAvailable {
                JSONScan.plainPrefix(UnsafeRawBufferPointer($0), allowingNonASCII: true) < $0.count
            }
            ?? token.utf8.contains { !JSONScan.isPlain($0, allowingNonASCII: true) }
        if needsEscapes {
            return "must not hold control characters, quotes or backslashes"
        }
        return nil
    }

    /// Rejects data keys FCM reserves: `from`, `message_type`, and any starting with `google` or
    /// `gcm` in any letter case. Names the first in name order. Members set to null are ignored
    /// when `ignoringNull` (legacy data drops them).
    static func checkDataKeys(_ data: borrowing FieldReader<NoFields>, ignoringNull: Bool) throws(Rejection) {
        let document = data.document
        guard document.members(of: data.object).contains(where: { isReserved(document.name($0.key)) }) else { return }
        let reserved = data.effectiveMembers().first { member in
            isReserved(document.name(member.key)) && !(ignoringNull && document[member.value].kind == .null)
        }
        if let reserved {
            throw Rejection(.invalidDataKey, "\(data.path.describing(document.text(reserved.key))): reserved key")
        }
    }

    private static func isReserved(_ name: ByteSpan) -> Bool {
        name == ByteSpan("from") || name == ByteSpan("message_type")
            || hasPrefixIgnoringASCIICase(name, "google") || hasPrefixIgnoringASCIICase(name, "gcm")
    }

    private static func hasPrefixIgnoringASCIICase(_ name: ByteSpan, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard name.count >= count else { return false }
        for (offset, byte) in name.buffer.prefix(count).enumerated() {
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            if lowered != prefix.utf8Start[offset] { return false }
        }
        return true
    }

    static func checkCollapseKey(_ key: String?, path: @autoclosure () -> String) throws(Rejection) {
        if let key, key.utf8.count > maximumCollapseKeyBytes {
            throw Rejection(
                .invalidArgument, "\(path()): collapse key is \(key.utf8.count) bytes, over \(maximumCollapseKeyBytes)")
        }
    }

    static func noTarget(_ fields: String) -> Rejection {
        Rejection(.invalidArgument, "no target: the request names no \(fields)", isUndecodable: true)
    }
}
