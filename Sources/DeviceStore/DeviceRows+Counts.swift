import BridgeCore

extension DeviceRows {
    /// The key of the partition's ``DeviceCounts``, written with the rows whose writer knows them;
    /// sorts after the checkpoint's and before every device's, as a loaded file's keys must.
    static let countsKey = Array("counts".utf8)
    /// The counts the rows keep: more is damage, and could not be added to without overflow.
    private static let countsKept: ClosedRange<Int64> = 0...(1 << 48)

    /// The devices and waiting messages the rows hold, as the last write that knew them left them;
    /// nil when the last write did not (every write that does not know them removes them). Throws
    /// when the stored counts do not read.
    public func counts() throws(DeviceStoreError) -> DeviceCounts? {
        let read = try database.withValue(of: Self.countsKey) { value -> DeviceCounts?? in
            guard let value else { return .some(nil) }
            guard value.count == 16 else { return nil }
            let devices = Int64(littleEndian: value.loadUnaligned(as: Int64.self))
            let waiting = Int64(littleEndian: value.loadUnaligned(fromByteOffset: 8, as: Int64.self))
            guard Self.countsKept.contains(devices), Self.countsKept.contains(waiting) else { return nil }
            return .some(DeviceCounts(devices: Int(devices), waitingMessages: Int(waiting)))
        }.get()
        guard let counts = read else {
            throw DeviceStoreError(path: path, operation: "read", message: "the counts are not two counts of 8 bytes")
        }
        return counts
    }

    /// `counts` as the rows store them; nil for counts the rows do not keep.
    static func encoded(_ counts: DeviceCounts) -> [UInt8]? {
        let (devices, waiting) = (Int64(counts.devices), Int64(counts.waitingMessages))
        guard countsKept.contains(devices), countsKept.contains(waiting) else { return nil }
        var value: [UInt8] = []
        withUnsafeBytes(of: devices.littleEndian) { value.append(contentsOf: $0) }
        withUnsafeBytes(of: waiting.littleEndian) { value.append(contentsOf: $0) }
        return value
    }
}
