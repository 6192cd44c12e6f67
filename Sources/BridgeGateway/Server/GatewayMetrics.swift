import CoreMetrics
import Synchronization

/// The gateway's metrics, through swift-metrics with the factory given (Prometheus in
/// `fcm-bridge gateway`).
public final class GatewayMetrics: Sendable {
    let factory: any MetricsFactory
    private let produceLatency: Timer
    /// Each route's and answer's instruments, made once (routes and statuses are few).
    private let instruments = Mutex<[Answer: (Counter, Timer)]>([:])

    private struct Answer: Hashable {
        var route: String
        var status: Int
    }

    /// The gateway's metrics, made through `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        produceLatency = Timer(label: "fcm_bridge_gateway_produce_duration_seconds", factory: factory)
    }

    /// A request to `route` was answered `status` after `duration`.
    func answered(route: String, status: Int, after duration: Duration) {
        let (counter, timer) = instruments.withLock { instruments in
            let key = Answer(route: route, status: status)
            if let made = instruments[key] { return made }
            let made = (
                Counter(
                    label: "fcm_bridge_gateway_requests_total",
                    dimensions: [("route", route), ("code", String(status))],
                    factory: factory),
                Timer(
                    label: "fcm_bridge_gateway_request_duration_seconds", dimensions: [("route", route)],
                    factory: factory)
            )
            instruments[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(Self.nanoseconds(duration))
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
