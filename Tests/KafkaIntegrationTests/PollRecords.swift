import Kafka

extension KafkaConsumer {
    /// Polls until `count` records arrived (or the timeout passed).
    func pollRecords(count: Int, timeout: Duration = .seconds(30)) async throws -> [ConsumerRecord] {
        var records: [ConsumerRecord] = []
        let deadline = ContinuousClock.now + timeout
        while records.count < count, ContinuousClock.now < deadline {
            for case .record(let record) in try await poll() { records.append(record) }
        }
        return records
    }
}
