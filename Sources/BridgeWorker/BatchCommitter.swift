import BridgeConfig
import Kafka
import Logging

/// Makes a batch's outputs durable and commits the input offsets they cover, by the configured
/// delivery guarantee.
struct BatchCommitter: Sendable {
    let delivery: BridgeConfiguration.Delivery
    let producer: KafkaProducer
    let logger: Logger

    /// Exactly once: outputs, changelog writes and offsets in one transaction. At least once:
    /// offsets committed only after every output is acknowledged.
    ///
    /// Throws ``BatchNotCommitted`` when the batch did not commit; its outputs are then aborted
    /// (exactly once) or may be repeated (at least once), and the worker must start over from
    /// the last commit.
    func commit(_ records: [ProducerRecord], offsets: [TopicPartitionOffset], consumer: KafkaConsumer) async throws {
        switch delivery {
        case .exactlyOnce: try await commitTransaction(records, offsets: offsets, consumer: consumer)
        case .atLeastOnce: try await commitAfterAcknowledgement(records, offsets: offsets, consumer: consumer)
        }
    }

    private func commitTransaction(_ records: [ProducerRecord], offsets: [TopicPartitionOffset], consumer: KafkaConsumer) async throws {
        do {
            try producer.beginTransaction()
            _ = try await producer.enqueue(records)
            try await producer.sendOffsetsToTransaction(offsets, groupMetadata: try consumer.groupMetadata())
            try await commitRetrying()
        } catch let error as KafkaError {
            if error.transactionRequiresAbort {
                do {
                    try await producer.abortTransaction()
                } catch {
                    logger.error("aborting the transaction failed", metadata: ["error": "\(error)"])
                }
            }
            throw BatchNotCommitted(cause: error, offsets: offsets)
        }
    }

    /// Commits, trying again while librdkafka says the error is retriable.
    private func commitRetrying(attempts: Int = 5) async throws {
        for attempt in 1... {
            do {
                return try await producer.commitTransaction()
            } catch let error as KafkaError where error.isRetriable && attempt < attempts {
                logger.warning("retrying the transaction commit", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
            }
        }
    }

    private func commitAfterAcknowledgement(_ records: [ProducerRecord], offsets: [TopicPartitionOffset], consumer: KafkaConsumer) async throws {
        do {
            let reports = try await producer.enqueue(records).reports()
            try reports.throwFirstError()
            try await consumer.commit(offsets)
        } catch {
            throw BatchNotCommitted(cause: error, offsets: offsets)
        }
    }
}

/// A batch's outputs were not all made durable, so its offsets were not committed.
struct BatchNotCommitted: Error, CustomStringConvertible {
    var cause: any Error
    var offsets: [TopicPartitionOffset]
    var description: String {
        "the batch up to \(offsets) was not committed (\(cause)); a restart resumes from the last commit, with the same message ids"
    }
}
