extension RecordProcessor {
    /// The tokens of the devices whose queues processing `decoded` may read or change, each in
    /// the record's own partition (an input is handled where its record sits, or forwarded): what
    /// a store serving devices reads before the record is processed. More than are read is
    /// harmless; fewer is not. The devices the idle sweep forgets are not named: it forgets
    /// devices held only.
    ///
    /// A subscribe reads a device only to make it when it has none, so it names only devices in
    /// no topic of `topics`: a device in a topic exists, since forgetting it takes it out of every
    /// topic. An unsubscribe names each of its devices, which may leave their last topic before a
    /// subscribe of the same batch asks whether they exist.
    public func devices<Record>(namedBy decoded: DecodedRecord<Record>, topics: TopicStates) -> [String] {
        let partition = decoded.record.partition
        switch decoded.content {
        case .repartition(.success(.device(let routed, _))): return [routed.token]
        case .repartition(.success(.subscription(let change))) where change.action == .subscribe:
            return change.tokens.filter { topics.topicCount(of: $0, in: partition) == 0 }
        case .repartition(.success(.subscription(let change))): return change.tokens
        case .repartition(.success(.fanOut(.copies(_, _, _, _, let tokens)))): return tokens
        case .send(let result) where sendIsColocated:
            return result.accepted.lazy.map(\.token).filter { statePartition(of: $0) == partition }
        case .presence(.success(let event)) where presenceIsColocated:
            return statePartition(of: event.token) == partition ? [event.token] : []
        case .repartition, .send, .presence, .subscriptions, .unexpected: return []
        }
    }
}
