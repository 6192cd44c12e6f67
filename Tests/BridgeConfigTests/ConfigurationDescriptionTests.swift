import BridgeConfig
import Testing

@Suite("Configuration descriptions")
struct ConfigurationDescriptionTests {
    @Test(
        "secret Kafka properties are redacted wherever they are set; other values show",
        arguments: [
            "properties", "consumer_properties", "producer_properties",
        ])
    func secretsRedacted(section: String) throws {
        let yaml = """
            kafka:
              bootstrap_servers: broker:9092
              \(section):
                sasl.password: hunter2-secret
                ssl.key.password: key-secret
                sasl.oauthbearer.client.secret: oauth-secret
                linger.ms: 17
            """
        let description = String(describing: try ConfigurationLoader.load(yaml: yaml, environment: [:]))
        for secret in ["hunter2-secret", "key-secret", "oauth-secret"] {
            #expect(!description.contains(secret), "\(secret) shown in \(description)")
        }
        #expect(description.contains("sasl.password=[redacted]"))
        #expect(description.contains("linger.ms=17") && description.contains("broker:9092"))
    }
}
