/// A decoded FCM send request, from either API shape, before translation.
public struct SendRequest: Sendable, Hashable {
    /// Which API shape the request came in.
    public enum Format: String, Sendable, Hashable {
        /// HTTP v1 (`projects.messages.send`).
        case v1
        /// Legacy HTTP.
        case legacy
    }

    /// The request's delivery priority (legacy `priority`).
    public enum Priority: String, Sendable, Hashable {
        case high
        case normal
    }

    /// The shape it came in.
    public var format: Format
    /// The devices it targets: one, or up to 1000 for a legacy multicast.
    public var tokens: [String]
    /// `validate_only` (v1) or `dry_run` (legacy): check, but do not send.
    public var validateOnly = false
    /// What to show the user.
    public var notification = NotificationContent()
    /// Custom key-value pairs, which become top-level payload keys.
    public var data: [String: JSONValue] = [:]
    /// Legacy `priority`.
    public var priority: Priority?
    /// Legacy `content_available`.
    public var contentAvailable = false
    /// Legacy `mutable_content`.
    public var mutableContent = false
    /// Legacy `collapse_key`.
    public var collapseKey: String?
    /// Legacy `time_to_live`, in seconds.
    public var timeToLive: Int?
    /// v1 `apns.headers`: they win over derived headers.
    public var apnsHeaders: [String: String] = [:]
    /// v1 `apns.payload`: merged over the translated payload; its `aps` keys win.
    public var apnsPayload: [String: JSONValue] = [:]
    /// v1 `apns.fcm_options.image`.
    public var apnsImage: String?
    /// v1 `fcm_options.analytics_label` or `apns.fcm_options.analytics_label` (checked, not sent).
    public var analyticsLabel: String?

    /// Creates a request for the given devices.
    public init(format: Format, tokens: [String]) {
        self.format = format
        self.tokens = tokens
    }
}

/// FCM's notification fields.
public struct NotificationContent: Sendable, Hashable {
    public var title: String?
    public var body: String?
    public var subtitle: String?
    public var sound: String?
    public var badge: Int?
    public var clickAction: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var bodyLocKey: String?
    public var bodyLocArgs: [String]?
    public var image: String?

    public init() {}
}
