import BridgeCore

extension PartitionStore {
    /// Replays the stored records into `states`, which holds the partition, adopted and empty:
    /// the same decoding and the same apply as a restore from the changelog. Returns the
    /// records replayed. Throws ``StoreDoubt`` for a record that does not decode, a kind
    /// included that this version does not know, one SQLite cannot read, or one that does not
    /// match its checksum.
    public func load(into states: inout DeviceStates, codec: ChangelogCodec) throws(StoreDoubt) -> Int {
        var count = 0
        do {
            try forEachRecord { record, headers in
                states.restore(try codec.decode(record, header: headers.value(named:)), in: identity.partition)
                count += 1
            }
        } catch let doubt as StoreDoubt {
            throw doubt
        } catch {
            throw StoreDoubt(path: path, reason: "record \(count + 1) cannot be read (\(error))")
        }
        return count
    }
}
