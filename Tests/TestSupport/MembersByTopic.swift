import BridgeCore
import DeviceStore

extension DeviceRows {
    /// Every member row, by topic, each topic's members in the order of their keys.
    public func members() throws -> [String: [String]] {
        var members: [String: [String]] = [:]
        try forEachMember { members[$0, default: []].append($1) }
        return members
    }
}

extension TopicStates {
    /// The members of each topic of `partition`, in walk order.
    public func membersByTopic(in partition: Int32) -> [String: [String]] {
        Dictionary(members(in: partition).map { ($0.topic, $0.tokens) }, uniquingKeysWith: { $1 })
    }
}
