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
        members(in: partition).mapValues(\.tokens).filter { !$0.value.isEmpty }
    }
}

extension TopicMembers {
    /// Every member's token, in walk order.
    public var tokens: [String] {
        var tokens: [String] = []
        forEachToken { tokens.append($0) }
        return tokens
    }

    /// A topic whose members are `tokens`.
    public static func of(_ tokens: [String]) -> TopicMembers {
        var members = TopicMembers()
        for token in tokens { members.insert(token) }
        return members
    }
}
