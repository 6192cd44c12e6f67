import Foundation
import TestSupport
import Testing

/// Secrets given to the worker never reach its output, at any log level.
@Suite("Secrets in logs", .needsBroker, .timeLimit(.minutes(2)))
struct SecretTests {
    @Test("a SASL password and username from the environment appear nowhere in a trace-level run")
    func noSecretAtTrace() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1)
        let password = "pw-\(UUID().uuidString)"
        let username = "user-\(UUID().uuidString)"
        // PLAINTEXT still: librdkafka keeps the SASL settings without using them, so the run
        // works on the test broker while every configuration path sees the secrets.
        let worker = try WorkerProcess(
            fixture.configuration, logLevel: "trace",
            extraEnvironment: [
                "FCM_BRIDGE_KAFKA_PROPERTIES_SASL_PASSWORD": password,
                "FCM_BRIDGE_KAFKA_PROPERTIES_SASL_USERNAME": username,
                "FCM_BRIDGE_KAFKA_PROPERTIES_DEBUG": "generic,broker,conf,security",
            ])
        let token = uniqueToken("secret")
        try await fixture.send([Requests.legacy(token, title: "t")], key: token, at: testEpoch)
        let reader = try await fixture.outputs()
        try await reader.waitUntil("the worker at work") { !$0.statuses(of: token).isEmpty }
        worker.terminate()
        let output = worker.output
        #expect(output.contains("starting fcm-bridge worker"), "the run logged nothing: \(output.prefix(500))")
        #expect(output.contains("[redacted]"), "the secrets were not shown redacted anywhere")
        for (name, secret) in [("password", password), ("username", username)] {
            let lines = output.split(separator: "\n").filter { $0.contains(secret) }
            #expect(
                lines.count == 0,
                "the \(name) leaked in \(lines.count) lines, first: \(lines.first.map { String($0.prefix(300)) } ?? "")"
            )
        }
    }
}
