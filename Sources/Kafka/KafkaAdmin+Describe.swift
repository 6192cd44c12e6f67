extension KafkaAdmin {
    /// The configs of each topic in `names` as the cluster reports them (explicit settings and
    /// the broker's defaults), by topic name. A topic the cluster does not know is absent; other
    /// failures (not authorized, a cluster that cannot describe configs) throw ``KafkaError``.
    public func topicConfigs(_ names: [String], timeout: Duration = .seconds(10)) async throws -> [String: [String:
        String]]
    {
        try await client.blocking("describe configs") { try $0.topicConfigs(names, timeout: timeout) }
    }
}

extension KafkaAdmin {
    /// The topic id (KIP-516) of each topic in `names` the cluster knows, by name. A topic the
    /// cluster does not know is absent, and so is every topic on a cluster without topic ids
    /// (Kafka before 2.8). Other failures (not authorized, a broker that cannot describe topics)
    /// throw ``KafkaError``.
    public func topicIDs(_ names: [String], timeout: Duration = .seconds(10)) async throws -> [String: TopicID] {
        try await client.blocking("describe topics") { try $0.topicIDs(names, timeout: timeout) }
    }
}
