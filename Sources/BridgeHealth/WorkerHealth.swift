import Synchronization

/// What `/healthz` and `/readyz` answer from: the worker's loop says it is turning and whether
/// its partitions are restored; the endpoints read it from another task.
public final class WorkerHealth: Sendable {
    /// How long the loop may go without turning before the worker counts as stuck. Longer than
    /// anything a turn may take: a transaction commit (its 20 s timeout and retries), and a
    /// restore's stall timeout (60 s), during which the restore turns its own loop.
    public static let stuckAfter = Duration.seconds(120)

    private let lastTurn: Atomic<Int64>
    private let readiness = Atomic<Int>(Readiness.starting.rawValue)
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    /// Where the worker is on its way to handling records.
    public enum Readiness: Int, Sendable, CustomStringConvertible {
        /// Not yet a member of the group with partitions.
        case starting
        /// Restoring the device state of newly assigned partitions.
        case restoring
        /// Holding partitions with their state restored.
        case ready
        /// A member of the group without partitions (more workers than input partitions).
        case idle
        /// Shutting down.
        case stopping

        public var description: String {
            switch self {
            case .starting: "starting"
            case .restoring: "restoring"
            case .ready: "ready"
            case .idle: "idle: no partitions assigned"
            case .stopping: "stopping"
            }
        }
    }

    /// A health that has not turned yet; it counts as alive for ``stuckAfter`` from now.
    public init() {
        started = clock.now
        lastTurn = Atomic(0)
    }

    /// The loop turned (a poll returned, or a restore read on).
    public func turned() {
        lastTurn.store(nanoseconds(since: started, to: clock.now), ordering: .relaxed)
    }

    /// The loop's way to readiness moved on.
    public func set(_ readiness: Readiness) {
        self.readiness.store(readiness.rawValue, ordering: .relaxed)
    }

    /// How long ago the loop last turned (since creation if never).
    public var sinceLastTurn: Duration {
        .nanoseconds(nanoseconds(since: started, to: clock.now) - lastTurn.load(ordering: .relaxed))
    }

    /// Alive: the loop turned within ``stuckAfter``.
    public var isAlive: Bool { sinceLastTurn < Self.stuckAfter }

    /// Where the worker stands.
    public var readinessState: Readiness { Readiness(rawValue: readiness.load(ordering: .relaxed)) ?? .starting }

    private func nanoseconds(since start: ContinuousClock.Instant, to now: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (now - start).components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
