import BridgeWatch
import Testing

@Suite("Webhook descriptions")
struct WebhookDescriptionTests {
    /// A service holding a webhook, printed whole as the lifecycle's debug lines print services.
    struct Holder {
        var webhook: Webhook
    }

    @Test(
        "a webhook printed any way shows its address without user, password, query or fragment",
        arguments: [
            "https://alice:s3cret@example.com/hook?key=k3y#frag",
            "http://alice@example.com:8080/hook?s3cret",
        ])
    func credentialsRedacted(url: String) async throws {
        let webhook = Webhook(url: url, secrets: [])
        let printed = [
            "\(webhook)", String(reflecting: webhook), "\(Holder(webhook: webhook))",
            String(reflecting: Holder(webhook: webhook)),
        ]
        try await webhook.shutdown()
        for text in printed {
            #expect(text.contains("example.com"), "\(text)")
            for secret in ["alice", "s3cret", "k3y", "frag"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }
}
