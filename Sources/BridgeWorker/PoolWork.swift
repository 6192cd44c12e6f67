import NIOCore
import Synchronization

/// Work running on a thread pool while the worker's loop goes on: whether it has ended, asked
/// without waiting, and its value once it has.
struct PoolWork<Value: Sendable>: Sendable {
    private let result: EventLoopFuture<Value>
    private let ended: Ended

    /// Set once the work has ended, by the thread that ran it.
    private final class Ended: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// The work whose value `result` will be.
    init(_ result: EventLoopFuture<Value>) {
        let ended = Ended()
        self.result = result
        result.whenComplete { _ in ended.flag.store(true, ordering: .releasing) }
        self.ended = ended
    }

    /// Whether the work has ended: ``value()`` then returns at once.
    var hasEnded: Bool { ended.flag.load(ordering: .acquiring) }

    /// Waits for the work to end, however the waiting task is cancelled; its value, or its error.
    func value() async throws -> Value {
        try await result.get()
    }
}
