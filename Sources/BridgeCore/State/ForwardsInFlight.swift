/// The inputs this worker forwarded through the repartition topic to state partitions it holds,
/// and has not read back yet: per device, where the last one came from.
///
/// While a device has an input on its way, its inputs that could be handled in place are
/// forwarded behind it instead, so that per-device order holds across both paths. The worker's
/// forwards to one partition come back in the order it wrote them, so the device is released
/// when the last one is read back.
struct ForwardsInFlight: Sendable, Equatable {
    private var last: [Int32: [DeviceKey: String]] = [:]

    /// Whether `token` has an input on its way to `partition`.
    func contains(_ token: String, in partition: Int32) -> Bool {
        guard let devices = last[partition], !devices.isEmpty else { return false }
        return devices[DeviceKey(token: token)] != nil
    }

    /// An input from `source` (its record's place, see ``RepartitionCodec``) is on its way to
    /// `partition`.
    mutating func forwarded(_ token: String, to partition: Int32, source: String) {
        last[partition, default: [:]][DeviceKey(token: token)] = source
    }

    /// The forwarded input from `source` came back in `partition`: the device is released if it
    /// was the last one on its way.
    mutating func arrived(_ token: String, in partition: Int32, source: String) {
        let key = DeviceKey(token: token)
        guard last[partition]?[key] == source else { return }
        // The partition's entry is there (checked above); through the subscript with a default,
        // whose access is inlined, as `last[partition]?` is not (it allocates).
        last[partition, default: [:]][key] = nil
    }

    /// Devices with an input on their way to `partition`.
    func count(in partition: Int32) -> Int { last[partition]?.count ?? 0 }

    /// Forgets `partition` (no longer held).
    mutating func drop(_ partition: Int32) {
        last[partition] = nil
    }
}
