/// A send request in one of the contract's two shapes, ready to be produced to the send topic.
public enum SendRequest: Sendable, Hashable, Encodable {
    /// The body of FCM's HTTP v1 `projects.messages.send`.
    case v1(V1Message, validateOnly: Bool = false)
    /// A legacy HTTP request.
    case legacy(LegacyMessage)

    /// The device the request is for (its FID or registration token), when it names exactly one:
    /// its record's key.
    public var token: String? {
        switch self {
        case .v1(let message, _): message.fid ?? message.token
        case .legacy(let message):
            message.to.flatMap { $0.hasPrefix("/topics/") ? nil : $0 }
                ?? message.registrationIDs.flatMap { $0.count == 1 ? $0[0] : nil }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case message
        case validateOnly = "validate_only"
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .v1(let message, let validateOnly):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message, forKey: .message)
            if validateOnly { try container.encode(true, forKey: .validateOnly) }
        case .legacy(let message):
            try message.encode(to: encoder)
        }
    }
}

/// An HTTP v1 message: one target (`fid`, `token`, `topic` or `condition`), data, a
/// notification, and APNs overrides.
public struct V1Message: Sendable, Hashable, Encodable {
    /// A notification shown to the user.
    public struct Notification: Sendable, Hashable, Encodable {
        public var title: String?
        public var body: String?
        public var image: String?

        public init(title: String? = nil, body: String? = nil, image: String? = nil) {
            self.title = title
            self.body = body
            self.image = image
        }
    }

    /// APNs headers (`apns-priority`, `apns-expiration`, `apns-collapse-id`, ...) and payload.
    public struct APNs: Sendable, Hashable, Encodable {
        public var headers: [String: String]?
        public var payload: [String: JSON]?

        public init(headers: [String: String]? = nil, payload: [String: JSON]? = nil) {
            self.headers = headers
            self.payload = payload
        }
    }

    /// The device's Firebase Installation ID: how new code addresses a device, as Firebase's
    /// Admin SDKs do. The bridge treats it exactly as a registration token.
    public var fid: String?
    /// The device's registration token, which Firebase's Admin SDKs deprecate in favour of `fid`.
    public var token: String?
    public var topic: String?
    public var condition: String?
    public var data: [String: String]?
    public var notification: Notification?
    public var apns: APNs?

    /// A message to one device, by its Firebase Installation ID (what new code uses).
    public init(fid: String, data: [String: String]? = nil, notification: Notification? = nil, apns: APNs? = nil) {
        self.init(data: data, notification: notification, apns: apns)
        self.fid = fid
    }

    /// A message to one device, by its registration token (what older app servers send).
    public init(token: String, data: [String: String]? = nil, notification: Notification? = nil, apns: APNs? = nil) {
        self.init(data: data, notification: notification, apns: apns)
        self.token = token
    }

    /// A message to every device subscribed to `topic` (`news` or `/topics/news`).
    public init(topic: String, data: [String: String]? = nil, notification: Notification? = nil, apns: APNs? = nil) {
        self.init(data: data, notification: notification, apns: apns)
        self.topic = topic
    }

    /// A message to every device whose topics satisfy `condition`, such as
    /// `'sports' in topics && ('en' in topics || 'de' in topics)`.
    public init(
        condition: String, data: [String: String]? = nil, notification: Notification? = nil, apns: APNs? = nil
    ) {
        self.init(data: data, notification: notification, apns: apns)
        self.condition = condition
    }

    private init(data: [String: String]?, notification: Notification?, apns: APNs?) {
        self.data = data
        self.notification = notification
        self.apns = apns
    }
}

/// A legacy HTTP request: one token (`to`), up to 1000 (`registrationIDs`), a topic (`to:
/// "/topics/NAME"`) or a condition.
public struct LegacyMessage: Sendable, Hashable, Encodable {
    /// A notification shown to the user.
    public struct Notification: Sendable, Hashable, Encodable {
        public var title: String?
        public var body: String?
        public var subtitle: String?
        public var sound: String?
        /// The badge, as a string, as the legacy API takes it.
        public var badge: String?
        public var clickAction: String?

        public init(
            title: String? = nil, body: String? = nil, subtitle: String? = nil, sound: String? = nil,
            badge: String? = nil,
            clickAction: String? = nil
        ) {
            self.title = title
            self.body = body
            self.subtitle = subtitle
            self.sound = sound
            self.badge = badge
            self.clickAction = clickAction
        }

        private enum CodingKeys: String, CodingKey {
            case title, body, subtitle, sound, badge
            case clickAction = "click_action"
        }
    }

    /// `high` or `normal`.
    public enum Priority: String, Sendable, Hashable, Encodable {
        case high, normal
    }

    public var to: String?
    public var registrationIDs: [String]?
    public var condition: String?
    public var notification: Notification?
    public var data: [String: String]?
    public var priority: Priority?
    public var collapseKey: String?
    /// Seconds, 0 to 2,419,200.
    public var timeToLive: Int?
    public var contentAvailable: Bool?
    public var mutableContent: Bool?
    public var dryRun: Bool?

    /// A request to `to`: a token or `/topics/NAME`.
    public init(to: String, notification: Notification? = nil, data: [String: String]? = nil) {
        self.to = to
        self.notification = notification
        self.data = data
    }

    /// A request to up to 1000 tokens.
    public init(registrationIDs: [String], notification: Notification? = nil, data: [String: String]? = nil) {
        self.registrationIDs = registrationIDs
        self.notification = notification
        self.data = data
    }

    private enum CodingKeys: String, CodingKey {
        case to
        case registrationIDs = "registration_ids"
        case condition, notification, data, priority
        case collapseKey = "collapse_key"
        case timeToLive = "time_to_live"
        case contentAvailable = "content_available"
        case mutableContent = "mutable_content"
        case dryRun = "dry_run"
    }
}
