/// A consumer's whole state, as one machine behind its client's one lock (see
/// ``ClientStateMachine``): its life with the handle inside, the rebalances on their way from
/// librdkafka's callback to the caller (``ConsumerRebalances``) and, for a consumer that reads
/// partitions in turns, the queue of each assigned partition (``AssignedQueues``).
///
/// Transitions return what the caller must do with librdkafka, and which handle to do it with.
/// While running, rebalances wait for a poll. A close begins (``beginClose()``), its listener
/// hears of what is still reported, and then it leaves the group (``leaveGroup()``): from then
/// on nobody polls any more, so the close answers every rebalance not yet answered, and the
/// callback answers later ones itself, since librdkafka cannot leave the group while one waits
/// for its answer. Queues are made only while the consumer runs, and the close takes them all
/// once the consumer has left: a closed consumer holds none.
///
/// `Handle` and `Queue` are librdkafka's in the consumer; the tests use any values.
struct ConsumerStateMachine<Handle: Sendable, Queue: Sendable>: ClientStateMachine {
    private enum State: Sendable {
        case starting(queues: AssignedQueues<Queue>?)
        case running(Handle, rebalances: ConsumerRebalances, queues: AssignedQueues<Queue>?)
        /// `close` began; `rebalances` still wait for it until it leaves the group, nil after.
        case closing(Handle, rebalances: ConsumerRebalances?, queues: AssignedQueues<Queue>?)
        case closed
    }

    /// What the callback does with a rebalance librdkafka reported.
    enum ReportAction: Sendable {
        /// It is queued: wake the poll in progress, so that the caller sees it promptly.
        case wakePoll
        /// The consumer is leaving its group: answer it now, with this handle.
        case answer(Handle)
        /// The consumer is not running (a callback librdkafka makes while it is destroyed): nothing.
        case ignore
    }

    /// What a call to `close` does.
    enum CloseAction: Sendable {
        /// Close the consumer, with this handle.
        case close(Handle)
        /// Nothing: the consumer is closing or closed already.
        case none
    }

    private var state: State

    /// A consumer being made, which reads partitions in `turns`, or through librdkafka's consumer
    /// queue when nil.
    init(turns: PartitionTurns?) {
        state = .starting(queues: turns.map { AssignedQueues($0) })
    }

    mutating func start(_ handle: Handle) {
        guard case .starting(let queues) = state else { return }
        state = .running(handle, rebalances: ConsumerRebalances(), queues: queues)
    }

    func handle(duringClose: Bool) -> Handle? {
        switch state {
        case .running(let handle, _, _): handle
        case .closing(let handle, _, _): duringClose ? handle : nil
        case .starting, .closed: nil
        }
    }

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    // MARK: Rebalances

    /// librdkafka's callback reported `event`.
    mutating func reported(_ event: RebalanceEvent) -> ReportAction {
        if case .closing(let handle, nil, _) = state { return .answer(handle) }
        return withRebalances { $0.report(event) } == nil ? .ignore : .wakePoll
    }

    /// Whether the callback reported a rebalance nobody has taken yet: a poll returns at once.
    var hasReported: Bool {
        switch state {
        case .running(_, let rebalances, _), .closing(_, let rebalances?, _): rebalances.hasReported
        case .starting, .closing(_, nil, _), .closed: false
        }
    }

    /// A poll without a listener: the next step (see ``ConsumerRebalances/next()``).
    mutating func nextRebalance() -> ConsumerRebalances.NextAction {
        withRebalances { $0.next() } ?? .readRecords
    }

    /// Completing `event`, handed out by ``nextRebalance()``, failed: it is handed out again
    /// first, or answered by the close if it begins meanwhile. Once the consumer left its group,
    /// returns the handle to answer it with at once.
    mutating func notCompleted(_ event: RebalanceEvent) -> Handle? {
        if case .closing(let handle, nil, _) = state { return handle }
        withRebalances { $0.notCompleted(event) }
        return nil
    }

    /// A poll with a listener, or a close before it leaves: every rebalance reported since the
    /// last, in order.
    mutating func takeReported() -> [RebalanceEvent] {
        withRebalances { $0.takeReported() } ?? []
    }

    // MARK: Close

    /// `close` was called: only the calls that finish the consumer's work are served from now on.
    mutating func beginClose() -> CloseAction {
        guard case .running(let handle, let rebalances, let queues) = state else { return .none }
        state = .closing(handle, rebalances: rebalances, queues: queues)
        return .close(handle)
    }

    /// The close leaves the group: returns what it must still answer, in order (the revocation
    /// returned last, then the rebalances not yet taken). From now on the callback answers each
    /// rebalance itself.
    mutating func leaveGroup() -> [RebalanceEvent] {
        guard case .closing(let handle, let rebalances?, let queues) = state else { return [] }
        state = .closing(handle, rebalances: nil, queues: queues)
        return rebalances.unanswered
    }

    /// The close has finished: it took every queue (``closeQueues(_:)``) once the consumer left,
    /// as librdkafka cannot destroy a client while a queue of it is held, and none is made after.
    mutating func finishClose() {
        state = .closed
    }

    // MARK: Partition queues

    /// The partitions with a queue, in turn order.
    var partitionsWithQueues: [TopicPartition] {
        switch state {
        case .starting(let queues), .running(_, _, let queues), .closing(_, _, let queues): queues?.partitions ?? []
        case .closed: []
        }
    }

    /// Partitions are about to be assigned: makes their queues, with `make`, while the consumer
    /// runs. A closing consumer reads no more, so an assignment then gets no queues: its records
    /// go to the consumer queue, which the close discards.
    mutating func openQueues(_ partitions: [TopicPartition], making make: (TopicPartition) -> Queue?) {
        guard case .running = state else { return }
        withQueues { $0.open(partitions, making: make) }
    }

    /// Partitions were taken back, or the consumer left its group: returns their queues, for the
    /// caller to destroy.
    mutating func closeQueues(_ partitions: [TopicPartition]) -> [Queue] {
        withQueues { $0.close(partitions) } ?? []
    }

    /// What one poll takes of each partition's queue (see ``AssignedQueues/planTurns(waiting:maxRecords:)``).
    mutating func planTurns(waiting: (Queue) -> Int, maxRecords: Int) -> [(Queue, Int)] {
        withQueues { $0.planTurns(waiting: waiting, maxRecords: maxRecords) } ?? []
    }

    // Each takes the payload out of `state` before changing it (`.closed` stands in meanwhile),
    // so that its buffers are not shared and change in place.

    private mutating func withRebalances<T>(_ body: (inout ConsumerRebalances) -> T) -> T? {
        switch state {
        case .running(let handle, var rebalances, let queues):
            state = .closed
            defer { state = .running(handle, rebalances: rebalances, queues: queues) }
            return body(&rebalances)
        case .closing(let handle, var rebalances?, let queues):
            state = .closed
            defer { state = .closing(handle, rebalances: rebalances, queues: queues) }
            return body(&rebalances)
        case .starting, .closing(_, nil, _), .closed:
            return nil
        }
    }

    private mutating func withQueues<T>(_ body: (inout AssignedQueues<Queue>) -> T) -> T? {
        switch state {
        case .starting(var queues?):
            state = .closed
            defer { state = .starting(queues: queues) }
            return body(&queues)
        case .running(let handle, let rebalances, var queues?):
            state = .closed
            defer { state = .running(handle, rebalances: rebalances, queues: queues) }
            return body(&queues)
        case .closing(let handle, let rebalances, var queues?):
            state = .closed
            defer { state = .closing(handle, rebalances: rebalances, queues: queues) }
            return body(&queues)
        case .starting(nil), .running(_, _, nil), .closing(_, _, nil), .closed:
            return nil
        }
    }
}
