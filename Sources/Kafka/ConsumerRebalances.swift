/// The rebalances of a running consumer on their way from librdkafka's callback to the caller:
/// part of its ``ConsumerStateMachine``, so that no rebalance falls between two locks.
///
/// The callback queues each rebalance and the caller takes them when it polls: with a listener,
/// all at once; without one, one at a time as events, a revocation being completed only at the
/// next poll (or close), after the caller has committed what it did.
struct ConsumerRebalances: Sendable {
    /// What a poll without a listener does before it reads records.
    enum NextAction: Sendable {
        /// Complete `revocation`, returned by the last poll and committed for by now, then ask again.
        case completeRevocation(RebalanceEvent)
        /// Return `event` alone; a revocation is kept to be completed by the next poll.
        case returnEvent(RebalanceEvent)
        /// No rebalance: read records.
        case readRecords
    }

    /// Reported by the callback, not yet taken.
    private var reported: [RebalanceEvent] = []
    /// A revocation returned as an event and not yet completed.
    private var returned: RebalanceEvent?

    /// librdkafka's callback reported `event`.
    mutating func report(_ event: RebalanceEvent) {
        reported.append(event)
    }

    /// Whether the callback reported a rebalance nobody has taken yet: a poll returns at once.
    var hasReported: Bool { !reported.isEmpty }

    /// A poll without a listener: the next step, one at a time.
    mutating func next() -> NextAction {
        if let revocation = returned {
            returned = nil
            return .completeRevocation(revocation)
        }
        guard !reported.isEmpty else { return .readRecords }
        let event = reported.removeFirst()
        if case .assign = event.kind {} else { returned = event }
        return .returnEvent(event)
    }

    /// Completing `event`, which ``next()`` handed out, failed (its call was cancelled): it is
    /// handed out again, first, by the next call.
    mutating func notCompleted(_ event: RebalanceEvent) {
        if case .assign = event.kind { reported.insert(event, at: 0) } else { returned = event }
    }

    /// A poll with a listener: every rebalance reported since the last, in order.
    mutating func takeReported() -> [RebalanceEvent] {
        defer { reported = [] }
        return reported
    }

    /// What a close must still answer, in order: the revocation returned last, then the
    /// rebalances not yet taken.
    var unanswered: [RebalanceEvent] {
        (returned.map { [$0] } ?? []) + reported
    }
}
