import CoreMetrics

/// The gateway's metrics, through swift-metrics with the factory given (Prometheus in
/// `fcm-bridge gateway`).
public struct GatewayMetrics: Sendable {
    let factory: any MetricsFactory
    private let produceLatency: Timer

    /// The gateway's metrics, made through `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        produceLatency = Timer(label: "fcm_bridge_gateway_produce_duration_seconds", factory: factory)
    }

    /// A request to `route` was answered `status` after `duration`.
    func answered(route: String, status: Int, after duration: Duration) {
        Counter(
            label: "fcm_bridge_gateway_requests_total", dimensions: [("route", route), ("code", String(status))],
            factory: factory
        ).increment()
        Timer(label: "fcm_bridge_gateway_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(duration))
    }

    /// A record was acknowledged by the broker after `duration`.
    func produced(after duration: Duration) {
        produceLatency.recordNanoseconds(Self.nanoseconds(duration))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }
}
