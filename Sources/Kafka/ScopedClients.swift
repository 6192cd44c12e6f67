import Logging

/// Runs `body` with a new producer, and closes it when `body` returns or throws: what is in
/// flight is delivered first (see ``KafkaProducer/close(timeout:)``). For a caller that needs a
/// producer for a while; a failed close is thrown unless `body` threw, whose error wins.
public func withKafkaProducer<Result>(
    configuration: KafkaProducerConfiguration, statistics: (@Sendable (KafkaStatistics) -> Void)? = nil,
    logger: Logger, isolation: isolated (any Actor)? = #isolation,
    _ body: (KafkaProducer) async throws -> Result
) async throws -> Result {
    let producer = try KafkaProducer(configuration: configuration, statistics: statistics, logger: logger)
    return try await closing(producer, logger: logger, body: body) { try await $0.close() }
}

/// Runs `body` with a new consumer, and closes it when `body` returns or throws: it leaves its
/// group (see ``KafkaConsumer/close()``). A failed close is thrown unless `body` threw.
public func withKafkaConsumer<Result>(
    configuration: KafkaConsumerConfiguration, rebalanceListener: (any KafkaRebalanceListener)? = nil,
    statistics: (@Sendable (KafkaStatistics) -> Void)? = nil, logger: Logger,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (KafkaConsumer) async throws -> Result
) async throws -> Result {
    let consumer = try KafkaConsumer(
        configuration: configuration, rebalanceListener: rebalanceListener, statistics: statistics, logger: logger)
    return try await closing(consumer, logger: logger, body: body) { try await $0.close() }
}

/// Runs `body` with a new admin client, and closes it when `body` returns or throws.
public func withKafkaAdmin<Result>(
    configuration: KafkaConfiguration, logger: Logger, isolation: isolated (any Actor)? = #isolation,
    _ body: (KafkaAdmin) async throws -> Result
) async throws -> Result {
    let admin = try KafkaAdmin(configuration: configuration, logger: logger)
    return try await closing(admin, logger: logger, body: body) { await $0.close() }
}

/// Runs `body`, then `close`, on both paths; the body's error wins over the close's, which is
/// then logged.
private func closing<Client: Sendable, Result>(
    _ client: Client, logger: Logger, isolation: isolated (any Actor)? = #isolation,
    body: (Client) async throws -> Result, close: (Client) async throws -> Void
) async throws -> Result {
    let result: Swift.Result<Result, any Error>
    do {
        result = .success(try await body(client))
    } catch {
        result = .failure(error)
    }
    do {
        try await close(client)
    } catch {
        guard case .failure = result else { throw error }
        logger.error("closing a Kafka client after an error failed: \(error)")
    }
    return try result.get()
}
