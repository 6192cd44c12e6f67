import CRDKafka
import Logging
import Testing

@testable import Kafka

@Suite("Configuration")
struct ConfigurationTests {
    let kafka = KafkaConfiguration(bootstrapServers: "127.0.0.1:9092", clientID: "test")

    @Test("consumer settings map onto librdkafka properties; offsets are never auto-committed")
    func consumerProperties() {
        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: "group-1")
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.fetchWaitMax = .milliseconds(10)
        configuration.fetchQueueBackoff = .milliseconds(20)
        configuration.reportsEndOfPartition = true
        configuration.autoOffsetReset = .latest
        let properties = configuration.librdkafkaProperties
        let expected: [(String, String)] = [
            ("bootstrap.servers", "127.0.0.1:9092"), ("client.id", "test"), ("group.id", "group-1"),
            ("enable.auto.commit", "false"), ("enable.auto.offset.store", "false"),
            ("session.timeout.ms", "6000"), ("fetch.wait.max.ms", "10"), ("fetch.queue.backoff.ms", "20"),
            ("enable.partition.eof", "true"),
            ("auto.offset.reset", "latest"), ("isolation.level", "read_committed"),
        ]
        for (key, value) in expected {
            #expect(properties[key] == value, "\(key)")
        }
    }

    @Test(
        "durations become whole milliseconds, saturating instead of overflowing",
        arguments: [
            (Duration.milliseconds(1500), 1500),
            (Duration.zero, 0),
            (Duration.microseconds(2999), 2),
            (Duration.seconds(-3), -3000),
            (Duration.seconds(Int64.max), Int.max),
            (Duration.seconds(Int64.min), Int.min),
            (Duration.seconds(Int64.max / 1000) + .seconds(1), Int.max),
        ])
    func milliseconds(_ duration: Duration, expected: Int) {
        #expect(duration.milliseconds == expected)
    }

    @Test("a consumer without a group still gets a group.id, which it never joins")
    func consumerWithoutGroup() {
        let properties = KafkaConsumerConfiguration(kafka: kafka, groupID: nil).librdkafkaProperties
        #expect(properties["group.id"] == "test.unsubscribed")
        #expect(properties["fetch.queue.backoff.ms"] == nil, "librdkafka's own default unless set")
    }

    @Test("pass-through properties win over typed settings")
    func passThroughWins() {
        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: "g")
        configuration.kafka.properties = ["session.timeout.ms": "7000", "security.protocol": "SASL_SSL"]
        let properties = configuration.librdkafkaProperties
        #expect(properties["session.timeout.ms"] == "7000")
        #expect(properties["security.protocol"] == "SASL_SSL")
    }

    @Test("producers partition keys like the Java client; transactions cap the message timeout")
    func producerProperties() {
        var configuration = KafkaProducerConfiguration(kafka: kafka, transactionalID: "tx-1")
        configuration.transactionTimeout = .seconds(10)
        let properties = configuration.librdkafkaProperties
        #expect(properties["partitioner"] == "murmur2_random")
        #expect(properties["transactional.id"] == "tx-1")
        #expect(properties["enable.idempotence"] == "true")
        #expect(properties["message.timeout.ms"] == "10000")
        #expect(KafkaProducerConfiguration(kafka: kafka).librdkafkaProperties["transactional.id"] == nil)
    }

    @Test(
        "the typed linger gives way to linger.ms or its alias queue.buffering.max.ms among the properties",
        arguments: [
            ([:], "linger.ms", "20"),
            (["linger.ms": "3"], "linger.ms", "3"),
            (["queue.buffering.max.ms": "3"], "queue.buffering.max.ms", "3"),
        ])
    func lingerGivesWay(properties: [String: String], key: String, expected: String) throws {
        var configuration = KafkaProducerConfiguration(kafka: kafka)
        configuration.kafka.properties = properties
        configuration.linger = .milliseconds(20)
        let librdkafka = configuration.librdkafkaProperties
        #expect(librdkafka[key] == expected)
        // Both names set would leave the value to the order librdkafka is given them in.
        #expect(librdkafka.keys.filter { ["linger.ms", "queue.buffering.max.ms"].contains($0) } == [key])
        let conf = try NativeConfiguration.make(librdkafka)
        defer { rd_kafka_conf_destroy(conf) }
        #expect(NativeConfiguration.value(of: "linger.ms", in: conf) == expected)
    }

    @Test(
        "secret values never appear in descriptions",
        arguments: [
            "sasl.password", "sasl.username", "ssl.key.password", "ssl.key.pem", "sasl.oauthbearer.client.secret",
        ])
    func redaction(property: String) {
        let configuration = KafkaConfiguration(bootstrapServers: "b:9092", properties: [property: "hunter2"])
        #expect(!configuration.description.contains("hunter2"))
        #expect(configuration.description.contains("\(property)=[redacted]"))
    }

    @Test("ordinary values stay visible in descriptions")
    func visibleValues() {
        let configuration = KafkaConfiguration(bootstrapServers: "b:9092", properties: ["linger.ms": "7"])
        #expect(configuration.description.contains("linger.ms=7"))
        #expect(configuration.description.contains("bootstrap.servers=b:9092"))
    }

    @Test(
        "a default of a newer librdkafka is set where the linked one knows it, left out where not, and loses to a given property"
    )
    func defaultsWhereKnown() throws {
        let telemetryKnown = rd_kafka_version() >= 0x0205_0000
        // An unknown default must not make `make` throw, as an unknown given property does.
        let conf = try NativeConfiguration.make(
            [:], defaults: ["enable.metrics.push": "false", "no.such.property": "1", "linger.ms": "7"])
        defer { rd_kafka_conf_destroy(conf) }
        #expect(NativeConfiguration.value(of: "enable.metrics.push", in: conf) == (telemetryKnown ? "false" : nil))
        #expect(NativeConfiguration.value(of: "linger.ms", in: conf) == "7")
        // A property every supported release knows: the given value wins over the default.
        let given = try NativeConfiguration.make(["linger.ms": "3"], defaults: ["linger.ms": "7"])
        defer { rd_kafka_conf_destroy(given) }
        #expect(NativeConfiguration.value(of: "linger.ms", in: given) == "3")
    }

    @Test("every client is made with client telemetry off unless its properties turn it on")
    func clientTelemetryOff() async throws {
        guard rd_kafka_version() >= 0x0205_0000 else { return }  // no telemetry before librdkafka 2.5
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical  // the producer is refused by the address it never needs
        func made(_ properties: [String: String]) async throws -> String? {
            let client = try KafkaClient(
                role: .producer,
                properties: KafkaProducerConfiguration(kafka: kafka).librdkafkaProperties.merging(properties) { $1 },
                context: ClientContext(logger: quiet, properties: [:])
            )
            let value = client.configurationValue("enable.metrics.push")
            _ = client.beginClose()
            await client.finishClose()
            return value
        }
        #expect(try await made([:]) == "false")
        // This client's release may wait its second for telemetry's end: the defect the default avoids.
        #expect(try await made(["enable.metrics.push": "true"]) == "true")
    }

    @Test("an unknown property is an error naming it")
    func unknownProperty() {
        let error = #expect(throws: KafkaError.self) {
            _ = try NativeConfiguration.make(["no.such.property": "1"])
        }
        #expect(error?.code == KafkaError.Code.invalidArgument)
        #expect(error?.message.contains("\"no.such.property\"") == true)
    }

    @Test("an invalid value is an error naming the property and librdkafka's reason")
    func invalidValue() {
        let error = #expect(throws: KafkaError.self) {
            _ = try NativeConfiguration.make(["linger.ms": "soon"])
        }
        #expect(error?.message.contains("\"linger.ms\"") == true)
        #expect(error?.message.contains("Invalid value") == true)
    }

    @Test("neither errors nor librdkafka's log lines carry secret values")
    func secretsStayOutOfErrorsAndLogs() {
        let logs = CapturedLogs()
        let error = #expect(throws: KafkaError.self) {
            _ = try KafkaProducer(
                configuration: KafkaProducerConfiguration(
                    kafka: KafkaConfiguration(
                        bootstrapServers: "127.0.0.1:1",
                        properties: [
                            "security.protocol": "SSL",
                            "ssl.key.location": "/no/such/dir/hunter2.key",
                            "ssl.key.password": "hunter2",
                        ]
                    )),
                logger: logs.logger
            )
        }
        #expect(error?.description.contains("hunter2") == false)
        // librdkafka logs the failing fopen() of the key file; the path must come out redacted.
        #expect(logs.lines.contains { $0.contains("[redacted]") })
        #expect(!logs.lines.contains { $0.contains("hunter2") })
    }

    @Test("client creation with a bad property fails, naming the property")
    func badClient() {
        let error = #expect(throws: KafkaError.self) {
            _ = try KafkaProducer(
                configuration: KafkaProducerConfiguration(
                    kafka: KafkaConfiguration(
                        bootstrapServers: "127.0.0.1:1", properties: ["acks": "several"]
                    )),
                logger: Logger(label: "test")
            )
        }
        #expect(error?.message.contains("\"acks\"") == true)
    }

    @Test("durations become whole milliseconds")
    func durations() {
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
        #expect(Duration.seconds(2).milliseconds == 2000)
        #expect(Duration.microseconds(2500).milliseconds == 2)
    }
}
