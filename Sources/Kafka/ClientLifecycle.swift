/// The life of a producer or an admin client (see ``ClientStateMachine``): running until `close`
/// begins, closing while the close itself finishes the client's work (flushing), then closed,
/// which stops its loops. While it runs every call gets the handle; once `close` began only the
/// calls that finish its work do (`duringClose`); once closed, none.
struct ClientLifecycle<Handle: Sendable>: ClientStateMachine {
    /// Where the client is in its life.
    enum State: Sendable {
        case starting
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

    private(set) var state = State.starting

    /// A client being made.
    init() {}

    mutating func start(_ handle: Handle) {
        guard case .starting = state else { return }
        state = .running(handle)
    }

    func handle(duringClose: Bool) -> Handle? {
        switch state {
        case .running(let handle): handle
        case .closing(let handle): duringClose ? handle : nil
        case .starting, .closed: nil
        }
    }

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// `close` was called.
    mutating func beginClose() -> CloseAction {
        guard case .running(let handle) = state else { return .none }
        state = .closing(handle)
        return .close
    }

    mutating func finishClose() {
        state = .closed
    }
}
