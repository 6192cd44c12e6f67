/// Who is online when, for the demo's simulated devices: each follows a fixed cycle of online and
/// offline seconds, so the traffic generator knows without asking which device stays offline long
/// enough to overflow its queue, and a run can be replayed.
///
/// Most devices are online 7 s of every 10; every tenth is a *sleeper*, online 4 s of every 20,
/// the target of the overflow bursts that end in a `deleted_messages` and a full sync. From
/// `settlesAt` on, every device is online, so that every waiting message can leave.
public struct DevicePlan: Sendable, Hashable {
    /// The devices' identifiers (registration tokens or FIDs), one per device, unique to this run.
    public let tokens: [String]
    /// The run's topics: `news` (every third device) and `sport` (every fourth).
    public let topics: [String]
    /// The second of the run from which every device stays online; nil for never.
    public var settlesAt: Int?
    private let members: Set<String>

    public init(run: String, devices: Int, settlesAt: Int? = nil) {
        tokens = (0..<max(devices, 1)).map { "demo-\(run)-\($0)" }
        topics = ["demo-\(run)-news", "demo-\(run)-sport"]
        members = Set(tokens)
        self.settlesAt = settlesAt
    }

    /// Whether `token` is one of this run's devices (another run's share the topics).
    public func contains(_ token: String) -> Bool { members.contains(token) }

    /// The devices subscribed to topic `index` of ``topics``: every third for the first, every
    /// fourth for the second.
    public func members(ofTopic index: Int) -> [String] {
        tokens.indices.filter { $0 % (index == 0 ? 3 : 4) == 0 }.map { tokens[$0] }
    }

    /// The condition the run sends to: its devices in both topics.
    public var condition: String { topics.map { "'\($0)' in topics" }.joined(separator: " && ") }

    /// Whether `topic` (a `fanned_out`'s first topic) is one of this run's.
    public func ownsTopic(_ topic: String) -> Bool { topics.contains(topic) }

    /// Whether the app server addresses `device` by its Firebase Installation ID (`fid`), as new
    /// app servers do; the rest by registration token. A third of the devices, sleepers among them.
    public func isAddressedByFID(_ device: Int) -> Bool { device % 3 == 1 }

    /// Whether `device` is a sleeper: rarely online.
    public func isSleeper(_ device: Int) -> Bool { device % 10 == 0 }

    /// Whether `device` is online during `second` of the run.
    public func isOnline(_ device: Int, atSecond second: Int) -> Bool {
        if let settlesAt, second >= settlesAt { return true }
        let cycle = cycle(of: device)
        return position(of: device, atSecond: second) < cycle.online
    }

    /// The number of devices online during `second`.
    public func onlineCount(atSecond second: Int) -> Int {
        tokens.indices.count { isOnline($0, atSecond: second) }
    }

    /// The sleeper that is offline during `second` and stays offline for at least `seconds` more,
    /// connecting soonest after that: where a burst of messages overflows its queue and the full
    /// sync follows quickly. Nil when none is (or the run settles before it would connect).
    public func burstTarget(atSecond second: Int, offlineForAtLeast seconds: Int) -> Int? {
        let candidates = tokens.indices.filter { isSleeper($0) && !isOnline($0, atSecond: second) }
            .map { (device: $0, offline: offlineSeconds(of: $0, atSecond: second)) }
            .filter { candidate in
                candidate.offline >= seconds && settlesAt.map { second + candidate.offline <= $0 } ?? true
            }
        return candidates.min { ($0.offline, $0.device) < ($1.offline, $1.device) }?.device
    }

    /// Seconds from `second` until `device`, offline then, connects (by its cycle).
    func offlineSeconds(of device: Int, atSecond second: Int) -> Int {
        cycle(of: device).length - position(of: device, atSecond: second)
    }

    private func cycle(of device: Int) -> (length: Int, online: Int) {
        isSleeper(device) ? (20, 4) : (10, 7)
    }

    /// Where in its cycle `device` is during `second`; devices start at different points.
    private func position(of device: Int, atSecond second: Int) -> Int {
        let length = cycle(of: device).length
        let phase = (device / 10 * 7 + device * 3) % length
        return (max(second, 0) % length + phase) % length
    }
}
