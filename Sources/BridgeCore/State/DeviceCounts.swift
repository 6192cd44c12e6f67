import DeviceQueues

/// A state partition's devices and the messages waiting in them: what its gauges show, kept
/// beside a store's rows so that a partition served from them knows it without reading them all.
public struct DeviceCounts: Sendable, Hashable {
    /// Devices.
    public var devices: Int
    /// Messages waiting in them.
    public var waitingMessages: Int

    /// `devices` devices with `waitingMessages` messages waiting.
    public init(devices: Int, waitingMessages: Int) {
        self.devices = devices
        self.waitingMessages = waitingMessages
    }

    /// The counts of `devices`.
    public init(of devices: some Sequence<DeviceQueue>) {
        var counts = DeviceCounts(devices: 0, waitingMessages: 0)
        for device in devices {
            counts.devices += 1
            counts.waitingMessages += device.waiting.count
        }
        self = counts
    }
}
