import BridgeCore
import DeviceStore

/// What a restore replayed, and what it did not.
struct ReplayCount: Sendable {
    /// Changes replayed from the changelog.
    var changes = 0
    /// Records replayed from the local stores.
    var fromStores = 0
    /// Partitions that resumed the state set aside for them (no store replayed).
    var resumed: [Int32] = []
    /// Partitions served from their device rows, whose stores replayed topic state only.
    var fromRows: [Int32] = []
    /// Records not replayed as they came.
    var skipped = SkippedChanges()
    /// By partition served from its rows, the members that joined or left its topics, in order:
    /// for its rows, which hold the topics' members as they were before them.
    var members: [Int32: [MemberRowChange]] = [:]

    /// Applies `batch` to `states` and counts what it held.
    mutating func add(_ batch: inout DecodedChanges, to states: inout DeviceStates) {
        for case (.member(let topic, let token, let isMember), let partition) in batch.topicChanges
        where states.isServed(partition) {
            members[partition, default: []].append(MemberRowChange(topic: topic, token: token, isMember: isMember))
        }
        changes += batch.apply(to: &states)
        skipped.add(batch.skipped)
        batch.skipped = SkippedChanges()
    }
}
