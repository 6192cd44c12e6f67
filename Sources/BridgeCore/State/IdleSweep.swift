import DeviceQueues

/// Forgets the idle devices of one state partition (``DeviceQueue/isIdle(at:rules:)``), so that
/// state stays bounded however many tokens pass through.
///
/// A scan finds the idle devices at an input's event time; the inputs after it forget them a
/// few at a time, so that no input makes more than about ``changesPerInput`` changelog records.
/// Scans follow event time, never the wall clock: one when event time has moved an
/// ``interval`` either way since the last (backwards too, so that one record from the far
/// future cannot stop them), and only once the partition has had enough inputs since the last
/// to pay for it (a sixteenth of its devices), so that skewed producer clocks cannot make every
/// input a scan. The first input after a partition is restored scans.
struct IdleSweep: Sendable, Equatable {
    /// Event time between scans, in milliseconds.
    static let interval: Int64 = 3_600_000
    /// Changelog records that forgetting may add to one input's (one device may add more: one per
    /// id awaiting its `ack`, a tombstone and a leave per topic it is subscribed to, at most
    /// twice `queue.max_topics_per_device`, and a tombstone of the condition sends it took).
    static let changesPerInput = 256

    /// Event time of the last scan, against which its candidates are checked again; nil before
    /// the first.
    private var scannedAt: Int64?
    /// Inputs handled since the last scan.
    private var inputsSinceScan = 0
    /// Devices the last scan found idle, not forgotten yet.
    private var candidates: [DeviceKey] = []

    /// Counts an input at `time`; whether a scan is due, in a partition of `deviceCount` devices.
    mutating func isScanDue(at time: Int64, deviceCount: Int) -> Bool {
        inputsSinceScan += 1
        guard candidates.isEmpty else { return false }
        guard let scannedAt else { return true }
        return inputsSinceScan >= deviceCount / 16
            && (time.saturatingSubtract(scannedAt) >= Self.interval
                || scannedAt.saturatingSubtract(time) >= Self.interval)
    }

    /// A scan at `time` found `idle`.
    mutating func scanned(at time: Int64, idle: [DeviceKey]) {
        scannedAt = time
        inputsSinceScan = 0
        candidates = idle
    }

    /// Adds `idle`, found idle at the last scan's time elsewhere (a store's devices), to be forgotten
    /// after those the scan found; none before a scan.
    mutating func add(_ idle: [DeviceKey]) {
        guard scannedAt != nil else { return }
        candidates.insert(contentsOf: idle, at: 0)
    }

    /// The next `count` devices to forget at most, the next first.
    func upcoming(_ count: Int) -> [DeviceKey] { candidates.suffix(max(count, 0)).reversed() }

    /// Puts `key`, just taken, back as the next device to forget.
    mutating func putBack(_ key: DeviceKey) { candidates.append(key) }

    /// The next device to forget, if any is left, with the event time of the scan that found it.
    mutating func nextCandidate() -> (key: DeviceKey, scannedAt: Int64)? {
        guard let scannedAt, let key = candidates.popLast() else { return nil }
        return (key, scannedAt)
    }
}
