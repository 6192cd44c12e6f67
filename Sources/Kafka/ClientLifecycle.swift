/// The life of a librdkafka client, as a state machine its ``KafkaClient`` keeps behind a lock,
/// holding the client's handle: running until `close` begins, closing while the close itself
/// finishes the client's work (flushing, answering a last rebalance), then closed, which stops
/// its loops. The handle is reached only through the state, so no call can reach a closed
/// client: while it runs every call gets it; once `close` began only the calls that finish its
/// work do (`duringClose`, such as the commit of a last revocation); once closed, none.
struct ClientLifecycle<Handle: Sendable>: Sendable {
    /// Where the client is in its life.
    enum State: Sendable {
        case running(Handle)
        case closing(Handle)
        case closed
    }

    /// What a call to `close` does.
    enum CloseAction: Sendable, Equatable {
        /// Close the client: this call is the first.
        case close
        /// Nothing: the client is closing or closed already.
        case none
    }

    private(set) var state: State

    /// A running client's life.
    init(running handle: Handle) {
        state = .running(handle)
    }

    /// The handle for a call from outside, or nil when it is not served: while the client runs,
    /// and for calls that finish its work (`duringClose`) while it closes too.
    func handle(duringClose: Bool) -> Handle? {
        switch state {
        case .running(let handle): handle
        case .closing(let handle): duringClose ? handle : nil
        case .closed: nil
        }
    }

    /// The handle for another round of one of the client's loops (a producer's delivery
    /// reports): until closed, so that a close can still flush.
    var loopHandle: Handle? { handle(duringClose: true) }

    /// Whether the close has finished.
    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// `close` was called.
    mutating func beginClose() -> CloseAction {
        guard case .running(let handle) = state else { return .none }
        state = .closing(handle)
        return .close
    }

    /// The close has finished the client's work: its loops stop.
    mutating func finishClose() {
        state = .closed
    }
}
