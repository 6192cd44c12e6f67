import CoreMetrics

/// The watcher's metrics, through swift-metrics with the factory given (Prometheus in
/// `fcm-bridge watch`).
public struct WatchMetrics: Sendable {
    let factory: any MetricsFactory
    /// Events the webhook took.
    let delivered: Counter
    /// Events parked after the webhook refused them.
    let parked: Counter
    private let attempts: [String: Counter]

    /// The watcher's metrics, made through `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        delivered = Counter(label: "fcm_bridge_watch_events_delivered_total", factory: factory)
        parked = Counter(label: "fcm_bridge_watch_events_parked_total", factory: factory)
        attempts = Dictionary(
            uniqueKeysWithValues: WebhookAnswer.metricLabels.map {
                ($0, Counter(label: "fcm_bridge_watch_attempts_total", dimensions: [("answer", $0)], factory: factory))
            })
    }

    /// An attempt was answered with `answer`.
    func attempted(_ answer: WebhookAnswer) {
        attempts[answer.metricLabel]?.increment()
    }

    /// The age of the oldest event waiting on `partition` (the one in delivery), in seconds; 0
    /// when none waits.
    func oldestWaiting(partition: Int32) -> Gauge {
        Gauge(
            label: "fcm_bridge_watch_oldest_event_age_seconds", dimensions: [("partition", String(partition))],
            factory: factory)
    }
}
