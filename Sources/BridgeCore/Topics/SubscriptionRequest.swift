import FCMTranslation

/// A subscription request (`fcm.subscriptions`), the body of FCM's `batchAdd` / `batchRemove`:
/// `{"action": "subscribe" | "unsubscribe", "topic": "news", "tokens": ["...", ...]}`.
public struct SubscriptionRequest: Sendable, Hashable {
    /// What the request does to each token's subscription.
    public enum Action: String, Sendable, Hashable {
        case subscribe, unsubscribe
    }

    public var action: Action
    /// The topic, without a `/topics/` prefix.
    public var topic: String
    /// The tokens to apply it to, in order, each once.
    public var tokens: [String]
    /// The tokens refused one by one (the rest apply), each rejection naming its place in the
    /// request's `tokens` (not echoing the token, which is no usable one).
    public var refused: [Rejection]

    /// The most tokens one request may name, as FCM's.
    public static let maximumTokens = 1000

    /// Why `token` cannot be subscribed or unsubscribed (the request's other tokens still are),
    /// or nil when it can.
    public static func tokenProblem(_ token: String) -> String? {
        token.isEmpty ? "must be a non-empty string" : RequestDecoder.tokenProblem(token)
    }

    /// Decodes a request. The whole request is rejected, addressed to every token it can read,
    /// when its action or topic is wrong, and with no token when its `tokens` are not an array of
    /// 1 to ``maximumTokens``; it is undecodable (a dead letter too) when it is not a JSON object
    /// with `tokens`. A token that is not a usable one is refused alone.
    public static func decode(_ bytes: (some Collection<UInt8>)?) -> Result<SubscriptionRequest, Rejection> {
        guard let bytes else { return .failure(.recordWithoutValue) }
        guard let json = try? JSONParser.parse(bytes), case .object(let members) = json else {
            return .failure(
                Rejection(.invalidArgument, "subscription request is not a JSON object", isUndecodable: true))
        }
        guard let given = members["tokens"] else {
            return .failure(Rejection(.invalidArgument, "tokens: an array of tokens is required", isUndecodable: true))
        }
        guard case .array(let values) = given else {
            return .failure(Rejection(.invalidArgument, "tokens: must be an array of tokens"))
        }
        guard (1...maximumTokens).contains(values.count) else {
            return .failure(
                Rejection(.invalidArgument, "tokens: must hold 1 to \(maximumTokens) tokens, not \(values.count)"))
        }
        var tokens: [String] = []
        var seen: Set<DeviceKey> = []
        var refused: [Rejection] = []
        for (index, value) in values.enumerated() {
            guard let token = value.stringValue else {
                refused.append(Rejection(.invalidArgument, "tokens[\(index)]: must be a non-empty string"))
                continue
            }
            if let problem = tokenProblem(token) {
                // Not to be a key or to be echoed: refused without a token.
                refused.append(Rejection(.invalidArgument, "tokens[\(index)]: \(problem)"))
                continue
            }
            if seen.insert(DeviceKey(token: token)).inserted { tokens.append(token) }
        }
        var whole = Rejection(.invalidArgument, "")
        whole.tokens = tokens
        guard let action = members["action"]?.stringValue.flatMap(Action.init(rawValue:)) else {
            whole.detail = #"action: must be "subscribe" or "unsubscribe""#
            return .failure(whole)
        }
        guard let topic = members["topic"]?.stringValue else {
            whole.detail = "topic: a topic name is required"
            return .failure(whole)
        }
        switch TopicName.validate(topic) {
        case .success(let topic):
            return .success(SubscriptionRequest(action: action, topic: topic, tokens: tokens, refused: refused))
        case .failure(let problem):
            whole.detail = "topic: \(problem)"
            return .failure(whole)
        }
    }
}
