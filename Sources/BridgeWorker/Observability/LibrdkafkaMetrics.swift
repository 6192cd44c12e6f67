import CoreMetrics
import Kafka
import Synchronization

/// librdkafka's statistics that matter to an operator, as gauges: consumer lag per partition,
/// round-trip time and request queues per broker, messages queued in the producer. Told of each
/// report on librdkafka's thread; a partition or broker a report no longer names loses its gauges.
public final class LibrdkafkaMetrics: Sendable {
    private let factory: any MetricsFactory
    /// By client type, then by the gauge's dimensions.
    private let gauges = Mutex<[String: [GaugeKey: Gauge]]>([:])

    fileprivate struct GaugeKey: Hashable {
        var label: String
        var dimensions: [String]
    }

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Records a report of one client.
    public func record(_ statistics: KafkaStatistics) {
        var values: [GaugeKey: Double] = [:]
        let client = statistics.type
        values[GaugeKey(label: "fcm_bridge_kafka_queued_messages", dimensions: ["client", client])] = Double(
            statistics.messageCount)
        values[GaugeKey(label: "fcm_bridge_kafka_reply_queue", dimensions: ["client", client])] = Double(
            statistics.replyQueue)
        for broker in statistics.brokers.values where broker.state == "UP" {
            let dimensions = ["client", client, "broker", broker.name]
            values[GaugeKey(label: "fcm_bridge_kafka_broker_outbuf_requests", dimensions: dimensions)] = Double(
                broker.outbufCount)
            values[GaugeKey(label: "fcm_bridge_kafka_broker_waiting_responses", dimensions: dimensions)] = Double(
                broker.waitingResponseCount)
            if let roundTrip = broker.roundTrip, roundTrip.avg > 0 {
                values[GaugeKey(label: "fcm_bridge_kafka_broker_rtt_seconds", dimensions: dimensions)] =
                    Double(roundTrip.avg) / 1_000_000
            }
        }
        if client == "consumer" {
            for (topic, entry) in statistics.topics {
                for partition in entry.partitions.values where partition.partition >= 0 {
                    guard let lag = partition.readingLag ?? partition.consumerLag, lag >= 0 else { continue }
                    values[
                        GaugeKey(
                            label: "fcm_bridge_consumer_lag",
                            dimensions: ["topic", topic, "partition", "\(partition.partition)"])] = Double(lag)
                }
            }
        }
        gauges.withLock { gauges in
            var current = gauges[client, default: [:]]
            for key in current.keys where values[key] == nil {
                current.removeValue(forKey: key)?.destroy()
            }
            for (key, value) in values {
                let gauge = current[key] ?? Gauge(label: key.label, dimensions: key.pairs, factory: factory)
                gauge.record(value)
                current[key] = gauge
            }
            gauges[client] = current
        }
    }
}

extension LibrdkafkaMetrics.GaugeKey {
    /// The dimensions as (name, value) pairs.
    fileprivate var pairs: [(String, String)] {
        stride(from: 0, to: dimensions.count - 1, by: 2).map { (dimensions[$0], dimensions[$0 + 1]) }
    }
}
