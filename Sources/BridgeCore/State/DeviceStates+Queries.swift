import DeviceQueues

extension DeviceStates {
    /// The topics `token` is subscribed to, when its state partition `partition` is held here;
    /// nil when it is not.
    public func subscriptions(of token: String, in partition: Int32) -> [String]? {
        owns(partition) ? topics.topics(of: token, in: partition) : nil
    }

    /// Every device held in `partition`; nil when the partition is not held.
    public func devices(in partition: Int32) -> [DeviceKey: DeviceQueue]? { partitions[partition] }
}

extension RecordProcessor {
    /// The state partition that owns `token`'s device, and how many there are.
    public func statePartition(ofDevice token: String) -> (partition: Int32, partitions: Int32) {
        (statePartition(of: token), statePartitions)
    }
}
