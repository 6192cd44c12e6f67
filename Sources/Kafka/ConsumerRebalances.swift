/// A consumer's rebalances on their way from librdkafka's callback to the caller, as a state
/// machine the consumer keeps behind one lock, so that no rebalance falls between two of them.
///
/// While the consumer is open, the callback queues each rebalance and the caller takes them
/// when it polls: with a listener, all at once; without one, one at a time as events, a
/// revocation being completed only at the next poll (or close), after the caller has committed
/// what it did. Once closing, nobody polls for them any more: the close takes every rebalance not
/// yet answered, and the callback answers later ones itself, since librdkafka cannot leave the
/// group while one waits for its answer.
struct ConsumerRebalances: Sendable {
    private enum State: Sendable {
        /// `reported` by the callback, not yet taken; `returned`, a revocation returned as an
        /// event and not yet completed.
        case open(reported: [RebalanceEvent], returned: RebalanceEvent?)
        case closing
    }

    /// What the callback does with a rebalance librdkafka reported.
    enum ReportAction: Sendable {
        /// It is queued: wake the poll in progress, so that the caller sees it promptly.
        case wakePoll
        /// The consumer is closing: answer it now.
        case answer
    }

    /// What a poll without a listener does before it reads records.
    enum NextAction: Sendable {
        /// Complete `revocation`, returned by the last poll and committed for by now, then ask again.
        case completeRevocation(RebalanceEvent)
        /// Return `event` alone; a revocation is kept to be completed by the next poll.
        case returnEvent(RebalanceEvent)
        /// No rebalance: read records.
        case readRecords
    }

    private var state = State.open(reported: [], returned: nil)

    /// librdkafka's callback reported `event`.
    mutating func reported(_ event: RebalanceEvent) -> ReportAction {
        guard case .open(var reported, let returned) = state else { return .answer }
        reported.append(event)
        state = .open(reported: reported, returned: returned)
        return .wakePoll
    }

    /// Whether the callback reported a rebalance nobody has taken yet: a poll returns at once.
    var hasReported: Bool {
        if case .open(let reported, _) = state { !reported.isEmpty } else { false }
    }

    /// A poll without a listener: the next step, one at a time.
    mutating func next() -> NextAction {
        guard case .open(var reported, let returned) = state else { return .readRecords }
        if let returned {
            state = .open(reported: reported, returned: nil)
            return .completeRevocation(returned)
        }
        guard !reported.isEmpty else { return .readRecords }
        let event = reported.removeFirst()
        let isAssign = if case .assign = event.kind { true } else { false }
        state = .open(reported: reported, returned: isAssign ? nil : event)
        return .returnEvent(event)
    }

    /// Completing `event`, which ``next()`` handed out, failed (its call was cancelled): it is
    /// handed out again, first, by the next call.
    mutating func notCompleted(_ event: RebalanceEvent) {
        guard case .open(var reported, let returned) = state else { return }
        if case .assign = event.kind {
            reported.insert(event, at: 0)
            state = .open(reported: reported, returned: returned)
        } else {
            state = .open(reported: reported, returned: event)
        }
    }

    /// A poll with a listener: every rebalance reported since the last, in order.
    mutating func takeReported() -> [RebalanceEvent] {
        guard case .open(let reported, let returned) = state else { return [] }
        state = .open(reported: [], returned: returned)
        return reported
    }

    /// The consumer closes: returns what must still be answered, in order (the revocation
    /// returned last, then the rebalances not yet taken). From now on the callback answers
    /// each rebalance itself.
    mutating func beginClose() -> [RebalanceEvent] {
        guard case .open(let reported, let returned) = state else { return [] }
        state = .closing
        return (returned.map { [$0] } ?? []) + reported
    }
}
