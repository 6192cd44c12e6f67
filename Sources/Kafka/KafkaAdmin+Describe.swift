extension KafkaAdmin {
    /// The configs of each topic in `names` as the cluster reports them (explicit settings and
    /// the broker's defaults), by topic name. A topic the cluster does not know is absent; other
    /// failures (not authorized, a cluster that cannot describe configs) throw ``KafkaError``.
    public func topicConfigs(_ names: [String], timeout: Duration = .seconds(10)) async throws -> [String: [String:
        String]]
    {
        try await call("describe configs") { try $0.topicConfigs(names, timeout: timeout) }
    }
}

extension KafkaAdmin {
    /// The topic id (KIP-516) of the topic `name`; nil when the cluster does not know the topic,
    /// or gives no ids (Kafka before 2.8). Other failures (not authorized, a broker that cannot
    /// describe topics) throw ``KafkaError``.
    public func topicID(of name: String, timeout: Duration = .seconds(10)) async throws -> TopicID? {
        try await call("describe topics") { try $0.topicID(of: name, timeout: timeout) }
    }
}
