import FCMBridgeClient

/// The demo's app server: which request the `number`th is, and how many outcomes (final statuses)
/// it must end in. A fixed mix of the contract's shapes and rules, to devices drawn at random.
public struct DemoTraffic: Sendable {
    /// A request and the final statuses it must cause: one per device reached for a send, one
    /// `rejected` or `validated` for the rest; for a topic or condition send, as many as its
    /// `fanned_out` counts (`isFanOut`).
    public struct Item: Sendable, Hashable {
        public var request: SendRequest
        public var outcomes: Int
        public var isFanOut = false
    }

    /// Collapse keys in use: one more than the contract's default of 4 that may wait, so some
    /// waiting keys are evicted (`collapse_key_limit`) as well as replaced (`collapse_key`).
    static let collapseKeys = ["score", "weather", "news", "offers", "traffic"]

    public let plan: DevicePlan

    public init(plan: DevicePlan) { self.plan = plan }

    /// The `number`th request of the run, to devices drawn with `random`.
    public func item(number: Int, using random: inout some RandomNumberGenerator) -> Item {
        let device = plan.tokens.indices.randomElement(using: &random) ?? 0
        let token = plan.tokens.indices.contains(device) ? plan.tokens[device] : ""
        let number = max(number, 0)
        switch number % 100 {
        case 0, 50:
            // Three devices at once, through the legacy API.
            var devices: [String] = []
            while devices.count < min(3, plan.tokens.count) {
                let device = plan.tokens.randomElement(using: &random) ?? ""
                if !devices.contains(device) { devices.append(device) }
            }
            return Item(
                request: .legacy(
                    LegacyMessage(
                        registrationIDs: devices,
                        notification: .init(title: "To \(devices.count)", body: "request \(number)"))),
                outcomes: devices.count)
        case 20:
            // To every device subscribed to the run's first topic.
            let topic = plan.topics.first ?? ""
            return Item(
                request: .v1(V1Message(topic: topic, notification: .init(title: "News", body: "request \(number)"))),
                outcomes: 0, isFanOut: true)
        case 70:
            // To every device in both of the run's topics.
            return Item(
                request: .v1(V1Message(condition: plan.condition, data: ["request": "\(number)"])), outcomes: 0,
                isFanOut: true)
        case 7:
            // A reserved data key: rejected (invalid_data_key).
            return Item(request: .v1(message(to: device, data: ["from": "the demo"])), outcomes: 1)
        case 13:
            // A dry run: validated, never delivered.
            return Item(
                request: .v1(message(to: device, notification: .init(title: "Dry run")), validateOnly: true),
                outcomes: 1)
        case let n where n % 25 == 3:
            // Now or never: expires at once for an offline device.
            var message = LegacyMessage(
                to: token, notification: .init(title: "Now or never", body: "request \(number)"))
            message.timeToLive = 0
            return Item(request: .legacy(message), outcomes: 1)
        case let n where n % 5 == 1:
            // Collapsible: a newer one replaces a waiting one with the same key.
            var message = LegacyMessage(to: token, data: ["value": "\(number)"])
            message.collapseKey = Self.collapseKeys[number / 5 % Self.collapseKeys.count]
            message.priority = .high
            return Item(request: .legacy(message), outcomes: 1)
        default:
            return Item(
                request: .v1(
                    message(to: device, notification: .init(title: "Message \(number)", body: "Hello from fcm-bridge"))),
                outcomes: 1)
        }
    }

    /// `count` plain messages to one device: past `max_pending` they overflow its queue, which is
    /// discarded (`deleted_messages`, a full sync when it connects).
    /// None for a device not in the plan.
    public func burst(to device: Int, count: Int) -> [Item] {
        guard plan.tokens.indices.contains(device) else { return [] }
        return (0..<max(count, 0)).map { index in
            Item(request: .v1(message(to: device, data: ["burst": "\(index)"])), outcomes: 1)
        }
    }

    /// A v1 message to `device`, by FID or by token as the plan says.
    private func message(to device: Int, data: [String: String]? = nil, notification: V1Message.Notification? = nil)
        -> V1Message
    {
        let id = plan.tokens.indices.contains(device) ? plan.tokens[device] : ""
        return plan.isAddressedByFID(device)
            ? V1Message(fid: id, data: data, notification: notification)
            : V1Message(token: id, data: data, notification: notification)
    }
}
