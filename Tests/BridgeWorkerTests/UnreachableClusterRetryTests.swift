import BridgeHealth
import Kafka
import Logging
import Synchronization
import Testing

@testable import BridgeWorker

@Suite("Start-up while no broker answers")
struct UnreachableClusterRetryTests {
    @Test(
        "waits double from the first delay up to the longest",
        arguments: [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16), (6, 30), (7, 30), (1_000_000, 30), (0, 1), (-5, 1)])
    func delays(attempt: Int, seconds: Int64) {
        #expect(UnreachableClusterRetry().delay(afterAttempt: attempt) == .seconds(seconds))
    }

    @Test("an unreachable cluster is tried again until it answers; the answer is returned")
    func retriesUntilAnswered() async throws {
        let retry = UnreachableClusterRetry(firstDelay: .milliseconds(1), longestDelay: .milliseconds(2))
        let failures: [KafkaError.Code] = [.transport, .allBrokersDown, .resolveFailed, .timedOut]
        var attempts = 0
        let answer = try await retry.run("a step", health: WorkerHealth(), logger: Logger(label: "test")) {
            attempts += 1
            if attempts <= failures.count { throw KafkaError(code: failures[attempts - 1]) }
            return attempts
        }
        #expect(answer == 5)
    }

    @Test("a refused connection behind an unreachable cluster ends the wait at once, naming the refusal")
    func refusalEndsTheWait() async throws {
        let refusal = KafkaError(code: .tls, message: "certificate verify failed")
        let retry = UnreachableClusterRetry(firstDelay: .milliseconds(1), refusal: { refusal })
        var attempts = 0
        let error = await #expect(throws: ClusterRefusesConnection.self) {
            try await retry.run("a step", health: WorkerHealth(), logger: Logger(label: "test")) {
                attempts += 1
                throw KafkaError(code: .transport)
            }
        }
        #expect(attempts == 1)
        #expect(error?.description.contains("certificate verify failed") == true)
    }

    @Test("a refusal reported before an attempt is not held against it")
    func earlierRefusalIsForgotten() async throws {
        let reported = Mutex<KafkaError?>(KafkaError(code: .saslAuthenticationFailed))
        let retry = UnreachableClusterRetry(
            firstDelay: .milliseconds(1), refusal: { reported.withLock { $0.take() } })
        var attempts = 0
        let answer = try await retry.run("a step", health: WorkerHealth(), logger: Logger(label: "test")) {
            attempts += 1
            if attempts == 1 { throw KafkaError(code: .transport) }
            return attempts
        }
        #expect(answer == 2)
    }

    @Test(
        "any other error ends the wait at once",
        arguments: [KafkaError.Code.topicAuthorizationFailed, .invalidArgument])
    func otherErrorsAreThrown(code: KafkaError.Code) async throws {
        let retry = UnreachableClusterRetry(firstDelay: .milliseconds(1))
        var attempts = 0
        await #expect(throws: KafkaError.self) {
            try await retry.run("a step", health: WorkerHealth(), logger: Logger(label: "test")) {
                attempts += 1
                throw KafkaError(code: code)
            }
        }
        #expect(attempts == 1)
    }
}
