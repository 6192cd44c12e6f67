/// The condition sends a device took its copy of, and from which of the condition's walks: its
/// copy from another walk is a repeat, and one from the same walk its record processed again.
///
/// An entry is kept for ``horizon`` of send time after the newest send noted, longer than any
/// fan-out still walks, and at most ``maximumKept`` entries are (the oldest go first).
public struct ConditionCopies: Sendable, Hashable {
    /// A condition send the device took its copy of.
    public struct Entry: Sendable, Hashable {
        /// The send's id.
        public var sendID: String
        /// The walk (the topic's place in the condition) the copy came from.
        public var walk: Int
        /// The send's event time.
        public var sentAt: Int64

        public init(sendID: String, walk: Int, sentAt: Int64) {
            self.sendID = sendID
            self.walk = walk
            self.sentAt = sentAt
        }
    }

    /// How long, in send time, an entry is kept after a newer send: a day.
    public static let horizon: Int64 = 86_400_000
    /// The most entries kept.
    public static let maximumKept = 256

    /// The entries, oldest first.
    public private(set) var entries: [Entry]

    /// The entries as recorded.
    public init(entries: [Entry] = []) {
        self.entries = Array(entries.suffix(Self.maximumKept))
    }

    /// The walk the device took its copy of `sendID` from; nil when it took none.
    public func walk(for sendID: String) -> Int? {
        entries.last { $0.sendID == sendID }?.walk
    }

    /// Notes that the device took its copy of `sendID`, sent at `sentAt`, from walk `walk`,
    /// forgetting entries past the horizon and beyond the most kept.
    public mutating func note(_ sendID: String, walk: Int, sentAt: Int64) {
        let (oldest, overflow) = sentAt.subtractingReportingOverflow(Self.horizon)
        if !overflow { entries.removeAll { $0.sentAt < oldest } }
        entries.append(Entry(sendID: sendID, walk: walk, sentAt: sentAt))
        if entries.count > Self.maximumKept { entries.removeFirst(entries.count - Self.maximumKept) }
    }
}
