/// A consumer's whole state, as one machine behind its client's one lock (see
/// ``ClientStateMachine``): its life with the handle inside, the rebalances on their way from
/// librdkafka's callback to the caller (``ConsumerRebalances``) and, for a consumer that reads
/// partitions in turns, the queue of each assigned partition (``AssignedQueues``).
///
/// Transitions return what the caller must do with librdkafka, and which handle to do it with.
/// While running, rebalances wait for a poll. Once closing, nobody polls for them any more: the
/// close takes every rebalance not yet answered, and the callback answers later ones itself,
/// since librdkafka cannot leave the group while one waits for its answer. Queues live until the
/// close takes them; a closed consumer holds nothing.
///
/// `Handle` and `Queue` are librdkafka's in the consumer; the tests use any values.
struct ConsumerStateMachine<Handle: Sendable, Queue: Sendable>: ClientStateMachine {
    private enum State: Sendable {
        case starting(queues: AssignedQueues<Queue>?)
        case running(Handle, rebalances: ConsumerRebalances, queues: AssignedQueues<Queue>?)
        case closing(Handle, queues: AssignedQueues<Queue>?)
        case closed
    }

    /// What the callback does with a rebalance librdkafka reported.
    enum ReportAction: Sendable {
        /// It is queued: wake the poll in progress, so that the caller sees it promptly.
        case wakePoll
        /// The consumer is closing: answer it now, with this handle.
        case answer(Handle)
        /// The consumer is not running (a callback librdkafka makes while it is destroyed): nothing.
        case ignore
    }

    /// What a call to `close` does.
    enum CloseAction: Sendable {
        /// Close the consumer with `handle`, first answering `unanswered` in order.
        case close(Handle, unanswered: [RebalanceEvent])
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
        case .closing(let handle, _): duringClose ? handle : nil
        case .starting, .closed: nil
        }
    }

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// Whether it reads each assigned partition from a queue of its own.
    var readsInTurns: Bool {
        switch state {
        case .starting(let queues), .running(_, _, let queues), .closing(_, let queues): queues != nil
        case .closed: false
        }
    }

    // MARK: Rebalances

    /// librdkafka's callback reported `event`.
    mutating func reported(_ event: RebalanceEvent) -> ReportAction {
        switch state {
        case .running(let handle, var rebalances, let queues):
            rebalances.report(event)
            state = .running(handle, rebalances: rebalances, queues: queues)
            return .wakePoll
        case .closing(let handle, _): return .answer(handle)
        case .starting, .closed: return .ignore
        }
    }

    /// Whether the callback reported a rebalance nobody has taken yet: a poll returns at once.
    var hasReported: Bool {
        if case .running(_, let rebalances, _) = state { rebalances.hasReported } else { false }
    }

    /// A poll without a listener: the next step (see ``ConsumerRebalances/next()``).
    mutating func nextRebalance() -> ConsumerRebalances.NextAction {
        withRebalances { $0.next() } ?? .readRecords
    }

    /// Completing `event`, handed out by ``nextRebalance()``, failed: it is handed out again first.
    mutating func notCompleted(_ event: RebalanceEvent) {
        withRebalances { $0.notCompleted(event) }
    }

    /// A poll with a listener: every rebalance reported since the last, in order.
    mutating func takeReported() -> [RebalanceEvent] {
        withRebalances { $0.takeReported() } ?? []
    }

    // MARK: Close

    /// `close` was called: from now on the callback answers each rebalance itself.
    mutating func beginClose() -> CloseAction {
        guard case .running(let handle, let rebalances, let queues) = state else { return .none }
        state = .closing(handle, queues: queues)
        return .close(handle, unanswered: rebalances.unanswered)
    }

    /// The close has finished: the caller has taken every queue (``closeQueues(_:)``) first, as
    /// librdkafka cannot destroy a client while a queue of it is held.
    mutating func finishClose() {
        state = .closed
    }

    // MARK: Partition queues

    /// The partitions with a queue, in turn order.
    var partitionsWithQueues: [TopicPartition] {
        switch state {
        case .starting(let queues), .running(_, _, let queues), .closing(_, let queues): queues?.partitions ?? []
        case .closed: []
        }
    }

    /// Partitions are about to be assigned: makes their queues, with `make`.
    mutating func openQueues(_ partitions: [TopicPartition], making make: (TopicPartition) -> Queue?) {
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

    private mutating func withRebalances<T>(_ body: (inout ConsumerRebalances) -> T) -> T? {
        guard case .running(let handle, var rebalances, let queues) = state else { return nil }
        defer { state = .running(handle, rebalances: rebalances, queues: queues) }
        return body(&rebalances)
    }

    private mutating func withQueues<T>(_ body: (inout AssignedQueues<Queue>) -> T) -> T? {
        switch state {
        case .starting(var queues?):
            defer { state = .starting(queues: queues) }
            return body(&queues)
        case .running(let handle, let rebalances, var queues?):
            defer { state = .running(handle, rebalances: rebalances, queues: queues) }
            return body(&queues)
        case .closing(let handle, var queues?):
            defer { state = .closing(handle, queues: queues) }
            return body(&queues)
        case .starting(nil), .running(_, _, nil), .closing(_, nil), .closed:
            return nil
        }
    }
}
