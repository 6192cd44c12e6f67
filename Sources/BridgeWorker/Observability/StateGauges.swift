import BridgeCore

/// Sets the gauges of the state the loop holds (devices, waiting messages, memberships,
/// fan-outs, partitions held and set aside) now and then: counting waiting messages walks every device, too much
/// for every turn.
struct StateGauges {
    static let interval = Duration.seconds(10)

    let metrics: WorkerMetrics
    private var last: ContinuousClock.Instant?

    init(metrics: WorkerMetrics) {
        self.metrics = metrics
    }

    /// Sets the gauges from `states` if ``interval`` has passed since the last time, or `force`.
    mutating func refresh(_ states: borrowing DeviceStates, now: ContinuousClock.Instant, force: Bool = false) {
        if !force, let last, now - last < Self.interval { return }
        last = now
        metrics.devices.record(states.deviceCount)
        metrics.devicesInMemory.record(states.devicesInMemory)
        metrics.waitingMessages.record(states.waitingMessageCount)
        metrics.topicMemberships.record(states.topics.membershipCount)
        metrics.topicMembershipsInMemory.record(states.topics.membershipsInMemory)
        let fanOuts = states.topics.fanOutsInProgress
        metrics.fanOutsInProgress.record(fanOuts.tallies)
        metrics.fanOutWalks.record(fanOuts.walks)
        metrics.statePartitions.record(states.partitionCount)
        metrics.suspendedPartitions.record(states.suspendedPartitions.count)
    }
}
