import BridgeHealth
import FCMBridgeClient
import Foundation
import Logging

/// Delivers one event at a time to the webhook, by ``DeliveryAttempts``: until it is taken, or
/// refused as often as the policy allows.
public struct EventDelivery: Sendable {
    /// How one event's delivery ended.
    public enum Outcome: Sendable {
        case delivered
        /// Refused `attempts.refusals` times; the last answer is `answer`.
        case refused(answer: WebhookAnswer, attempts: Int)
    }

    let webhook: Webhook
    let policy: DeliveryAttempts.Policy
    let metrics: WatchMetrics
    let health: WorkerHealth
    let logger: Logger

    /// The longest the delivery sleeps between signs of life (``WorkerHealth/turned()``) and
    /// updates of the waiting event's age, during a long wait.
    static let longestSleep = Duration.seconds(5)

    /// Delivers to `webhook` by `policy`, recording `metrics`, turning `health`.
    public init(
        webhook: Webhook, policy: DeliveryAttempts.Policy, metrics: WatchMetrics, health: WorkerHealth, logger: Logger
    ) {
        self.webhook = webhook
        self.policy = policy
        self.metrics = metrics
        self.health = health
        self.logger = logger
    }

    /// Delivers `event` as `id`; throws only when cancelled.
    public func deliver(_ event: StatusEvent, id: String) async throws -> Outcome {
        var attempts = DeliveryAttempts(policy: policy)
        let age = metrics.oldestWaiting(partition: event.partition)
        defer { age.record(0) }
        /// The loop is alive, and the event has waited this long.
        func waiting() {
            health.turned()
            if let written = event.recordTimestamp {
                age.record(max(Date().timeIntervalSince1970 - Double(written) / 1000, 0))
            }
        }
        while true {
            waiting()
            let answer = await webhook.post(id: id, body: event.json)
            metrics.attempted(answer)
            switch attempts.answered(answer, jitter: Double.random(in: 0..<1)) {
            case .delivered:
                metrics.delivered.increment()
                logger.info(
                    "delivered",
                    metadata: [
                        "event": "\(id)", "token": "\(event.token ?? "none")", "attempts": "\(attempts.attempts)",
                    ])
                return .delivered
            case .park:
                return .refused(answer: answer, attempts: attempts.attempts)
            case .retry(let wait):
                logger.warning(
                    "the webhook did not take the event; retrying",
                    metadata: [
                        "event": "\(id)", "answer": "\(answer.summary)", "attempt": "\(attempts.attempts)",
                        "refusals": "\(attempts.refusals)", "retry_in": "\(wait)",
                    ])
                let until = ContinuousClock.now + wait
                while ContinuousClock.now < until {
                    try await Task.sleep(for: min(until - .now, Self.longestSleep))
                    waiting()
                }
            }
        }
    }
}
