/// The life of a librdkafka client, as a state machine its ``KafkaClient`` keeps behind a lock:
/// running until `close` begins, closing while the close itself finishes the client's work
/// (flushing, answering a last rebalance), then closed, which stops its loops. Calls from
/// outside are served only while it runs; after `close` began they fail at once.
struct ClientLifecycle: Sendable {
    /// Where the client is in its life.
    enum State: Sendable, Equatable {
        case running
        case closing
        case closed
    }

    /// What a call to `close` does.
    enum CloseAction: Sendable, Equatable {
        /// Close the client: this call is the first.
        case close
        /// Nothing: the client is closing or closed already.
        case none
    }

    private(set) var state = State.running

    /// Whether calls from outside are served: while it runs, and those that finish its work
    /// (`duringClose`, such as the commit of a last revocation) while it closes too.
    func servesCalls(duringClose: Bool) -> Bool {
        state == .running || (duringClose && state == .closing)
    }

    /// Whether the client's loops (a producer's delivery reports) keep running: until closed,
    /// so that a close can still flush.
    var loopsRun: Bool { state != .closed }

    /// `close` was called.
    mutating func beginClose() -> CloseAction {
        guard state == .running else { return .none }
        state = .closing
        return .close
    }

    /// The close has finished the client's work: its loops stop.
    mutating func finishClose() {
        state = .closed
    }
}
