/// The state of a librdkafka client as its ``KafkaClient`` keeps it, behind one lock, with the
/// client's handle inside: the handle is reached only through the state, so no call can reach a
/// client that is not started or is closed, and no method has anything to remember.
///
/// ``ClientLifecycle`` is a producer's and an admin client's; ``ConsumerStateMachine`` is a
/// consumer's, which holds its rebalances and partition queues in the same state.
protocol ClientStateMachine: Sendable {
    associatedtype Handle: Sendable

    /// The client was made: calls are served from now on.
    mutating func start(_ handle: Handle)

    /// The handle for a call from outside, or nil when it is not served: while the client runs,
    /// and for calls that finish its work (`duringClose`) while it closes too.
    func handle(duringClose: Bool) -> Handle?

    /// The close has finished the client's work: nothing is served any more.
    mutating func finishClose()

    /// Whether the close has finished.
    var isClosed: Bool { get }
}

extension ClientStateMachine {
    /// The handle for another round of one of the client's loops (a producer's delivery
    /// reports): until closed, so that a close can still flush.
    var loopHandle: Handle? { handle(duringClose: true) }
}
