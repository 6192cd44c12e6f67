import FCMTranslation

/// What a run of outputs holds, counted as it is written, for the worker's metrics and its
/// rejection log: records per topic, status events per type, rejections per reason, and the
/// first few rejected inputs in detail. A fixed size whatever the input: counts are arrays
/// indexed by enum, and details beyond ``maximumNotes`` are only counted.
public struct OutputTally: Sendable, Hashable {
    /// A rejected or dead-lettered input, for the log.
    public struct Note: Sendable, Hashable {
        /// Where the input was: `topic:partition:offset`.
        public var source: String
        /// The contract's reason, or the dead letter's error.
        public var reason: String
        /// What was wrong, naming the field (capped, as it may quote the input).
        public var detail: String
        /// The input went to the dead letter topic too.
        public var deadLettered: Bool
    }

    /// The most notes one tally keeps; the rest are counted in ``unnotedRejections``.
    public static let maximumNotes = 16

    /// Records written, by ``OutputTopic`` raw value.
    public private(set) var records = [Int](repeating: 0, count: OutputTopic.allCases.count)
    /// Status events written, by ``StatusType`` raw value.
    public private(set) var statuses = [Int](repeating: 0, count: StatusType.allCases.count)
    /// `rejected` status events written, by the index of their reason in `Rejection.Reason.allCases`.
    public private(set) var rejections = [Int](repeating: 0, count: Rejection.Reason.allCases.count)
    /// The first rejected inputs, in order.
    public private(set) var notes: [Note] = []
    /// Rejected inputs beyond ``maximumNotes``.
    public private(set) var unnotedRejections = 0
    /// Devices that took a copy of a topic or condition send.
    public internal(set) var fanOutCopies = 0

    /// Nothing counted.
    public init() {}

    mutating func wrote(_ topic: OutputTopic) {
        records[topic.rawValue] &+= 1
    }

    mutating func wrote(_ status: BridgeStatus) {
        statuses[status.type.rawValue] &+= 1
        if case .rejected(_, let rejection, _) = status,
            let index = Rejection.Reason.allCases.firstIndex(of: rejection.reason)
        {
            rejections[index] &+= 1
        }
    }

    mutating func note(_ note: @autoclosure () -> Note) {
        guard notes.count < Self.maximumNotes else {
            unnotedRejections &+= 1
            return
        }
        notes.append(note())
    }

    /// Adds `other`'s counts and notes (notes beyond the maximum are counted).
    public mutating func add(_ other: OutputTally) {
        for index in records.indices { records[index] &+= other.records[index] }
        for index in statuses.indices { statuses[index] &+= other.statuses[index] }
        for index in rejections.indices { rejections[index] &+= other.rejections[index] }
        for note in other.notes { self.note(note) }
        unnotedRejections &+= other.unnotedRejections
        fanOutCopies &+= other.fanOutCopies
    }

    /// Forgets the notes, keeping the counts.
    public mutating func removeNotes() {
        notes.removeAll(keepingCapacity: true)
        unnotedRejections = 0
    }
}

/// The contract's status event types.
public enum StatusType: Int, CaseIterable, Sendable {
    case queued, dispatched, delivered, expired, collapsed, deletedMessages, rejected, validated, subscribed,
        unsubscribed, fannedOut

    /// The `type` field as the contract spells it.
    public var name: String {
        switch self {
        case .queued: "queued"
        case .dispatched: "dispatched"
        case .delivered: "delivered"
        case .expired: "expired"
        case .collapsed: "collapsed"
        case .deletedMessages: "deleted_messages"
        case .rejected: "rejected"
        case .validated: "validated"
        case .subscribed: "subscribed"
        case .unsubscribed: "unsubscribed"
        case .fannedOut: "fanned_out"
        }
    }
}

extension BridgeStatus {
    /// Its type.
    var type: StatusType {
        switch self {
        case .queue(.queued): .queued
        case .queue(.dispatched): .dispatched
        case .queue(.delivered): .delivered
        case .queue(.expired): .expired
        case .queue(.collapsed): .collapsed
        case .queue(.deletedMessages): .deletedMessages
        case .rejected: .rejected
        case .validated: .validated
        case .subscription(.subscribe, _, _): .subscribed
        case .subscription(.unsubscribe, _, _): .unsubscribed
        case .fannedOut: .fannedOut
        }
    }
}
