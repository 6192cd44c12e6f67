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
