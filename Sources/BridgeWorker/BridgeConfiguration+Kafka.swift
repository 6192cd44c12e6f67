import BridgeConfig
import Kafka

extension BridgeConfiguration {
    /// What every Kafka client of the bridge shares: the cluster, the client id, `kafka.properties`
    /// and the statistics interval (reported only by clients that listen for statistics).
    public var kafkaClients: KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: kafka.bootstrapServers,
            clientID: kafka.clientID,
            properties: ["statistics.interval.ms": "\(kafka.statisticsIntervalMilliseconds)"].merging(kafka.properties) { $1 }
        )
    }

    /// What the bridge's consumers share: ``kafkaClients`` with `kafka.consumer_properties` over it.
    public var kafkaConsumers: KafkaConfiguration {
        var consumers = kafkaClients
        consumers.properties.merge(kafka.consumerProperties) { $1 }
        return consumers
    }
}
