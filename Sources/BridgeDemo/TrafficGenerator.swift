import FCMBridgeClient

/// The demo's app server: subscribes the run's devices to its topics, then sends `rate` requests
/// a second from the demo's mix through ``FCMBridgeSender``, and every 10 s a burst that
/// overflows a sleeping device's queue, until the run's duration is over.
struct TrafficGenerator: Sendable {
    let traffic: DemoTraffic
    let sender: FCMBridgeSender
    let rate: Int
    /// The queue limit (`queue.max_pending`): a burst is one message more.
    let maxPending: Int
    let duration: Duration?

    /// Bursts stay small enough to watch; past this limit there are none.
    static let largestBurst = 1000

    func run(from start: ContinuousClock.Instant, reporting events: AsyncStream<DemoEvent>.Continuation) async throws {
        for index in traffic.plan.topics.indices {
            try await sender.subscribe(traffic.plan.members(ofTopic: index), to: traffic.plan.topics[index])
        }
        var random = SystemRandomNumberGenerator()
        var sent = 0
        var nextBurst = 2
        while true {
            let elapsed = start.duration(to: .now)
            if let duration, elapsed >= duration {
                events.yield(.trafficStopped)
                return
            }
            let second = Int(elapsed.components.seconds)
            let due = min(Int(elapsed / .seconds(1) * Double(rate)) - sent, rate)
            var items = (0..<max(due, 0)).map { traffic.item(number: sent + $0, using: &random) }
            sent += items.count
            if second >= nextBurst, maxPending < Self.largestBurst,
                let device = traffic.plan.burstTarget(atSecond: second, offlineForAtLeast: 5)
            {
                items += traffic.burst(to: device, count: maxPending + 1)
                nextBurst = second + 10
            }
            if !items.isEmpty {
                try await sender.send(items.map(\.request))
                events.yield(
                    .sent(
                        requests: items.count, outcomes: items.reduce(0) { $0 + $1.outcomes },
                        fanOuts: items.count { $0.isFanOut }))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
