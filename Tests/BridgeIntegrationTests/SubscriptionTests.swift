import BridgeConfig
import FCMBridgeClient
import FCMTranslation
import TestSupport
import Testing

/// Subscription requests on the real broker: the statuses each token gets, and a device's
/// topics surviving a restart (its state restored from the changelog).
@Suite("Subscriptions", .needsBroker, .timeLimit(.minutes(3)))
struct SubscriptionTests {
    @Test(
        "subscribe and unsubscribe: each token gets its status, keyed by it, with the topic; bad tokens their rejected")
    func statuses() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let tokens = (0..<3).map { _ in uniqueToken("sub") }
            try await fixture.subscription(
                "subscribe", topic: "/topics/news", tokens: tokens + ["bad\"token"], at: testEpoch)
            try await fixture.subscription("unsubscribe", topic: "news", tokens: [tokens[0]], at: testEpoch + 1)
            try await reader.waitUntil("every status") { reader in
                tokens.allSatisfy { !reader.statuses(of: $0).isEmpty } && reader.statuses(of: tokens[0]).count == 2
            }
            for token in tokens {
                let first = try #require(reader.statuses(of: token).first)
                #expect(first["type"] == .string("subscribed") && first["topic"] == .string("news"))
            }
            #expect(reader.statuses(of: tokens[0]).last?["type"] == .string("unsubscribed"))
            let rejected = reader.statuses.filter { $0.key == nil }.map(\.json)
            #expect(rejected.map { $0["detail"]?.stringValue?.hasPrefix("tokens[3]") } == [true])
        }
    }

    @Test("the client library subscribes 2,500 devices in requests of at most 1,000: each is subscribed once")
    func clientSubscribes() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let devices = (0..<2500).map { "many-\($0)-\(uniqueToken())" }
            let sender = try FCMBridgeSender(
                kafka: fixture.kafka, topic: fixture.configuration.topics.send,
                subscriptionsTopic: fixture.configuration.topics.subscriptions, logger: TestBroker.logger)
            do {
                try await sender.subscribe(devices, to: "/topics/many")
            } catch {
                try? await sender.close()
                throw error
            }
            try await sender.close()
            try await reader.waitUntil("2,500 subscribed") { $0.statuses.count >= 2500 }
            let subscribed = reader.statuses.filter { $0.json["type"] == .string("subscribed") }
            #expect(subscribed.count == 2500 && Set(subscribed.compactMap(\.key)) == Set(devices))
            #expect(subscribed.allSatisfy { $0.json["topic"] == .string("many") })
        }
    }

    @Test("max_topics_per_device holds across a restart: the device's topics are restored from the changelog")
    func tooManyTopicsAfterRestart() async throws {
        let fixture = try await BridgeFixture.make { $0.queue.maxTopicsPerDevice = 2 }
        let token = uniqueToken("limit")
        let reader = try await fixture.outputs()
        var worker = fixture.startWorker()
        try await fixture.subscription("subscribe", topic: "a", tokens: [token], at: testEpoch)
        try await fixture.subscription("subscribe", topic: "b", tokens: [token], at: testEpoch + 1)
        try await reader.waitUntil("two subscriptions") { $0.statuses(of: token).count >= 2 }
        try await worker.stop()

        worker = fixture.startWorker()
        try await fixture.subscription("subscribe", topic: "c", tokens: [token], at: testEpoch + 2)
        let refused = try await reader.statuses(of: token, count: 3)[2]
        #expect(refused["type"] == .string("rejected") && refused["reason"] == .string("too_many_topics"))
        try await fixture.subscription("unsubscribe", topic: "a", tokens: [token], at: testEpoch + 3)
        try await fixture.subscription("subscribe", topic: "c", tokens: [token], at: testEpoch + 4)
        let statuses = try await reader.statuses(of: token, count: 5)
        try await worker.stop()
        let last = statuses.suffix(2).map { "\($0["type"]?.stringValue ?? "") \($0["topic"]?.stringValue ?? "")" }
        #expect(Set(last) == ["unsubscribed a", "subscribed c"])
    }
}
