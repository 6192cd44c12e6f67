/// A decoded FCM send request, from either API shape, before translation.
///
/// It keeps the request's ``JSONDocument`` and points into it: texts that go to the device
/// unchanged (notification texts, data, the APNs payload) are copied from the request's bytes
/// when the payload is written, never turned into `String`s in between.
public struct SendRequest: Sendable {
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
    /// The devices it targets: one, or up to 1000 for a legacy multicast; none for a topic target.
    public var tokens: DeviceTokens
    /// The topic or condition it targets instead of devices.
    public var topicTarget: TopicTarget? {
        get { topicTargetBox?.value }
        set { topicTargetBox = newValue.map(Box.init) }
    }
    /// ``topicTarget`` on the heap: a request to devices, nearly every one, copies a word for it.
    private var topicTargetBox: Box<TopicTarget>?
    /// `validate_only` (v1) or `dry_run` (legacy): check, but do not send.
    public var validateOnly = false
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

    /// The request's parsed bytes, which the fields below point into.
    let document: JSONDocument
    /// What to show the user.
    var notification = NotificationContent()
    /// The `data` object: custom key-value pairs, which become top-level payload keys (checked:
    /// no reserved keys; strings only in v1).
    var data: JSONNodeIndex?
    /// v1 `apns.headers`, an object of strings: they win over derived headers.
    var apnsHeaders: JSONNodeIndex?
    /// v1 `apns.payload`, an object: merged over the translated payload; its `aps` keys win.
    var apnsPayload: JSONNodeIndex?
    /// v1 `apns.fcm_options.image`, a string.
    var apnsImage: JSONNodeIndex?
    /// v1 `apns.live_activity_token`, a string checked like a device token: the message updates
    /// (or starts) the Live Activity it names.
    var liveActivityToken: JSONNodeIndex?

    init(format: Format, tokens: DeviceTokens, document: JSONDocument) {
        self.format = format
        self.tokens = tokens
        self.document = document
    }
}

/// FCM's notification fields: string nodes of the request's document, except the parsed ones.
struct NotificationContent: Sendable {
    var title: JSONNodeIndex?
    var body: JSONNodeIndex?
    var subtitle: JSONNodeIndex?
    var sound: JSONNodeIndex?
    var badge: Int?
    var clickAction: JSONNodeIndex?
    var titleLocKey: JSONNodeIndex?
    var titleLocArgs: [String]?
    var bodyLocKey: JSONNodeIndex?
    var bodyLocArgs: [String]?
    var image: JSONNodeIndex?
}

extension NotificationContent {
    /// Whether the notification fills `aps.alert`.
    var hasAlert: Bool {
        title != nil || body != nil || subtitle != nil || titleLocKey != nil || titleLocArgs != nil
            || bodyLocKey != nil || bodyLocArgs != nil
    }
}
