import BridgeHealth
import Kafka
import Logging
import ServiceLifecycle

/// Start-up steps that need the cluster, tried again while no broker answers: a worker started
/// before its cluster, or during an outage, waits alive and not ready (and says so in its log)
/// instead of exiting. A broker that refuses the connection (an untrusted certificate, refused
/// credentials), any other error, and a graceful shutdown end the wait.
struct UnreachableClusterRetry: Sendable {
    /// The wait after the first failure; each next wait doubles, up to ``longestDelay``.
    var firstDelay = Duration.seconds(1)
    var longestDelay = Duration.seconds(30)
    /// Takes the refused connection reported since it was last called, which a step's
    /// "unreachable" error can hide: one seen during an attempt is thrown as
    /// ``ClusterRefusesConnection``.
    var refusal: @Sendable () -> KafkaError? = { nil }

    /// The wait after failed attempt `attempt` (1 for the first).
    func delay(afterAttempt attempt: Int) -> Duration {
        let doublings = min(max(attempt, 1) - 1, 30)
        return min(firstDelay * (1 << doublings), longestDelay)
    }

    /// Runs `step` until it succeeds or fails for a reason other than an unreachable cluster.
    /// Throws ``ShutDownBeforeStart`` when a graceful shutdown comes while waiting.
    func run<T>(_ step: String, health: WorkerHealth, logger: Logger, _ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            _ = refusal()  // what came before this attempt
            do {
                let result = try await body()
                if attempt > 1 { logger.notice("the Kafka cluster answers", metadata: ["step": "\(step)"]) }
                return result
            } catch let error as KafkaError where error.isClusterUnreachable {
                if let refused = refusal() { throw ClusterRefusesConnection(refusal: refused) }
                let delay = delay(afterAttempt: attempt)
                logger.warning(
                    "cannot reach the Kafka cluster; trying again (alive, not ready)",
                    metadata: [
                        "step": "\(step)", "error": "\(error)", "attempt": "\(attempt)", "retry_in": "\(delay)",
                    ])
                health.turned()
                guard !Task.isShuttingDownGracefully else { throw ShutDownBeforeStart() }
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
                } catch is CancellationError {
                    throw ShutDownBeforeStart()
                }
            }
        }
    }
}

extension UnreachableClusterRetry {
    /// Tries steps of `admin`'s calls, telling a refused connection from what they saw.
    init(admin: KafkaAdmin) {
        self.init(refusal: { admin.takeConnectionRefusal() })
    }
}
