import BridgeConfig
import DeviceQueues
import Testing

@Suite("Configuration loading")
struct ConfigurationLoaderTests {
    @Test("a minimal file gets the contract's defaults")
    func defaults() throws {
        let configuration = try ConfigurationLoader.load(
            yaml: "kafka:\n  bootstrap_servers: broker:9092\n", environment: [:])
        #expect(configuration.kafka.bootstrapServers == "broker:9092")
        #expect(configuration.kafka.groupID == "fcm-bridge")
        #expect(configuration.topics.send == "fcm.send" && configuration.topics.deadLetters == "fcm.dlq")
        #expect(configuration.queue == QueueRules())
        #expect(configuration.delivery == .exactlyOnce)
        #expect(configuration.payloadLimit == 4096)
        #expect(configuration.changelogTopic == "fcm-bridge.device-state-changelog")
    }

    @Test("every field is read from the file")
    func everyField() throws {
        let yaml = """
            kafka:
              bootstrap_servers: a:1,b:2
              group_id: push
              client_id: push-worker
              transactional_id: push-1
              group_instance_id: worker-1
              properties:
                security.protocol: ssl
                linger.ms: 20
              consumer_properties: {fetch.wait.max.ms: 10}
              producer_properties: {batch.size: 100000}
              statistics_interval_ms: 0
            topics: {send: s, presence: p, inbox: i, status: st, dead_letters: d, subscriptions: su, partitions: 8, state_partitions: 16}
            queue: {max_pending: 10, max_collapse_keys: 2, default_time_to_live_seconds: 60, inactive_after_seconds: 3600, max_topics_per_device: 7}
            apns: {bundle_id: com.example.app, payload_limit: 5120}
            delivery: at_least_once
            state: {directory: /var/lib/push, cleanup_delay_ms: 5000, write_interval_ms: 250, device_rows: true, devices_held: 900}
            commit_interval_ms: 250
            max_batch_records: 50
            max_batch_bytes: 1048576
            log_level: notice
            http: {listen: "[::1]:9191"}
            """
        let configuration = try ConfigurationLoader.load(yaml: yaml, environment: [:])
        #expect(configuration.http == HTTPAddress(host: "::1", port: 9191))
        #expect(configuration.kafka.groupID == "push" && configuration.kafka.clientID == "push-worker")
        #expect(configuration.kafka.transactionalID == "push-1" && configuration.kafka.groupInstanceID == "worker-1")
        #expect(configuration.kafka.properties == ["security.protocol": "ssl", "linger.ms": "20"])
        #expect(configuration.kafka.consumerProperties == ["fetch.wait.max.ms": "10"])
        #expect(configuration.kafka.producerProperties == ["batch.size": "100000"])
        #expect(configuration.kafka.statisticsIntervalMilliseconds == 0)
        #expect(
            [
                configuration.topics.send, configuration.topics.presence, configuration.topics.inbox,
                configuration.topics.status, configuration.topics.deadLetters, configuration.topics.subscriptions,
            ] == ["s", "p", "i", "st", "d", "su"])
        #expect(configuration.queue.maxTopicsPerDevice == 7)
        #expect(configuration.topics.partitions == 8 && configuration.topics.statePartitions == 16)
        #expect(configuration.queue.maxPending == 10 && configuration.queue.maxCollapseKeys == 2)
        #expect(configuration.queue.defaultTimeToLive == 60_000 && configuration.queue.inactiveAfter == 3_600_000)
        #expect(configuration.bundleID == "com.example.app" && configuration.payloadLimit == 5120)
        #expect(configuration.delivery == .atLeastOnce && configuration.maxBatchRecords == 50)
        #expect(configuration.commitIntervalMilliseconds == 250 && configuration.maxBatchBytes == 1_048_576)
        #expect(configuration.logLevel == .notice)
        #expect(
            configuration.state.directory == "/var/lib/push" && configuration.state.cleanupDelayMilliseconds == 5000)
        #expect(configuration.state.writeIntervalMilliseconds == 250 && configuration.state.deviceRows)
        #expect(configuration.state.devicesHeld == 900)
    }

    @Test("environment variables override the file, including librdkafka properties")
    func environmentOverrides() throws {
        let yaml =
            "kafka:\n  bootstrap_servers: file:1\n  properties:\n    sasl.password: from-file\nqueue:\n  max_pending: 5\n"
        let configuration = try ConfigurationLoader.load(
            yaml: yaml,
            environment: [
                "FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": "env:2",
                "FCM_BRIDGE_QUEUE_MAX_PENDING": "7",
                "FCM_BRIDGE_DELIVERY": "at_least_once",
                "FCM_BRIDGE_KAFKA_PROPERTIES_SASL_PASSWORD": "from-env",
                "FCM_BRIDGE_APNS_BUNDLE_ID": "com.example.env",
                "FCM_BRIDGE_HTTP_LISTEN": "off",
                "FCM_BRIDGE_LOG_LEVEL": "trace",
                "FCM_BRIDGE_KAFKA_GROUP_INSTANCE_ID": "pod-0",
                "FCM_BRIDGE_STATE_DIRECTORY": "/data/state",
                "HOME": "/root",
            ])
        #expect(configuration.state.directory == "/data/state")
        #expect(configuration.logLevel == .trace)
        #expect(configuration.kafka.groupInstanceID == "pod-0")
        #expect(configuration.kafka.stableTransactionalID == "fcm-bridge-pod-0", "the identity the producer follows")
        #expect(configuration.http == nil)
        #expect(configuration.kafka.bootstrapServers == "env:2")
        #expect(configuration.queue.maxPending == 7)
        #expect(configuration.delivery == .atLeastOnce)
        #expect(configuration.kafka.properties == ["sasl.password": "from-env"])
        #expect(configuration.bundleID == "com.example.env")
    }

    @Test("the environment alone is enough")
    func environmentOnly() throws {
        let configuration = try ConfigurationLoader.load(
            yaml: "", environment: ["FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": "env:2"])
        #expect(configuration.kafka.bootstrapServers == "env:2")
    }

    @Test(
        "bad configurations stop with the field and what is wrong",
        arguments: [
            ("kafka: {}", [:], "kafka.bootstrap_servers", "is required"),
            ("kafka: {bootstrap_servers: ''}", [:], "kafka.bootstrap_servers", "must not be empty"),
            ("kafka: {bootstrap_servers: b:1, grup_id: x}", [:], "kafka.grup_id", "unknown key"),
            ("kafka: {bootstrap_servers: b:1}\nqueues: {}", [:], "queues", "unknown key"),
            ("kafka: {bootstrap_servers: b:1}\nstate: {directory: ''}", [:], "state.directory", "must not be empty"),
            (
                "kafka: {bootstrap_servers: b:1}\nstate: {cleanup_delay_ms: -1}", [:], "state.cleanup_delay_ms",
                "between"
            ),
            (
                "kafka: {bootstrap_servers: b:1}\nstate: {directory: /s, device_rows: yes}", [:], "state.device_rows",
                "must be true or false"
            ),
            (
                "kafka: {bootstrap_servers: b:1}\nstate: {device_rows: true}", [:], "state.device_rows",
                "state.directory"
            ),
            (
                "kafka: {bootstrap_servers: b:1}\nstate: {directory: /s, devices_held: 10}", [:], "state.devices_held",
                "state.device_rows"
            ),
            (
                "kafka: {bootstrap_servers: b:1}\nstate: {directory: /s, device_rows: true}",
                ["FCM_BRIDGE_STATE_DEVICES_HELD": "-1"], "state.devices_held", "between 0 and"
            ),
            (
                "kafka: {bootstrap_servers: b:1}", ["FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "3600001"],
                "state.write_interval_ms", "between 0 and"
            ),
            (
                "kafka: {bootstrap_servers: b:1, producer_properties: {delivery.report.only.error: 'true'}}\nstate: {directory: /s}",
                [:], "kafka.producer_properties.delivery.report.only.error", "delivery reports"
            ),
            ("kafka: {bootstrap_servers: b:1}\nqueue: {max_pending: lots}", [:], "queue.max_pending", "whole number"),
            ("kafka: {bootstrap_servers: b:1}\nqueue: {max_pending: 0}", [:], "queue.max_pending", "between 1 and"),
            (
                "kafka: {bootstrap_servers: b:1}\nqueue: {default_time_to_live_seconds: 2419201}", [:],
                "queue.default_time_to_live_seconds", "between 0 and 2419200"
            ),
            ("kafka: {bootstrap_servers: b:1}\nqueue: [1, 2]", [:], "queue", "must be a mapping"),
            (
                "kafka: {bootstrap_servers: b:1}\ndelivery: twice", [:], "delivery",
                "\"exactly_once\" or \"at_least_once\""
            ),
            (
                "kafka: {bootstrap_servers: b:1}\ntopics: {inbox: 'my inbox'}", [:], "topics.inbox",
                "not a valid topic name"
            ),
            ("kafka: {bootstrap_servers: b:1}\ntopics: {inbox: fcm.send}", [:], "topics", "its own name"),
            ("kafka: {bootstrap_servers: [a, b]}", [:], "kafka.bootstrap_servers", "single value"),
            (
                "kafka: {bootstrap_servers: b:1}", ["FCM_BRIDGE_QUEUE_MAX_PENDIN": "3"], "",
                "FCM_BRIDGE_QUEUE_MAX_PENDIN overrides no configuration field"
            ),
            (
                "kafka: {bootstrap_servers: b:1}", ["FCM_BRIDGE_QUEUE_MAX_PENDING": "-3"], "queue.max_pending",
                "between 1 and"
            ),
            ("kafka: [", [:], "", "not valid YAML"),
            (
                "kafka: {bootstrap_servers: b:1, group_instance_id: w-1, consumer_properties: {group.instance.id: w-2}}",
                [:], "kafka.consumer_properties.group.instance.id", "set it there alone"
            ),
            (
                "kafka: {bootstrap_servers: b:1, properties: {group.instance.id: w-2}}",
                ["FCM_BRIDGE_KAFKA_GROUP_INSTANCE_ID": "w-1"], "kafka.properties.group.instance.id",
                "set it there alone"
            ),
            (
                "kafka: {bootstrap_servers: b:1, group_instance_id: ''}", [:], "kafka.group_instance_id",
                "must not be empty"
            ),
            (
                "kafka: {bootstrap_servers: b:1}\ncommit_interval_ms: 30000", [:], "commit_interval_ms",
                "between 1 and 10000"
            ),
            ("kafka: {bootstrap_servers: b:1}\nmax_batch_bytes: 1000", [:], "max_batch_bytes", "between 65536 and"),
            (
                "kafka: {bootstrap_servers: b:1}\nlog_level: loud", [:], "log_level",
                "\"trace\" or \"debug\" or \"info\" or \"notice\" or \"warning\" or \"error\" or \"critical\", got \"loud\""
            ),
            ("kafka: {bootstrap_servers: b:1}\nhttp: {listen: 9090}", [:], "http.listen", "must be host:port"),
            (
                "kafka: {bootstrap_servers: b:1}", ["FCM_BRIDGE_HTTP_LISTEN": "0.0.0.0:99999"], "http.listen",
                "must be host:port"
            ),
            ("kafka: {bootstrap_servers: b:1}\nhttp: {port: 1}", [:], "http.port", "unknown key"),
            (
                "kafka: {bootstrap_servers: b:1, producer_properties: {delivery.report.only.error: 'true'}}\ndelivery: at_least_once",
                [:],
                "kafka.producer_properties.delivery.report.only.error",
                "at least once and state.directory wait for delivery reports"
            ),
            (
                "kafka: {bootstrap_servers: b:1, properties: {delivery.report.only.error: 'T'}}\ndelivery: at_least_once",
                [:],
                "kafka.properties.delivery.report.only.error",
                "at least once and state.directory wait for delivery reports"
            ),
        ] as [(String, [String: String], String, String)])
    func badConfigurations(yaml: String, environment: [String: String], field: String, problem: String) {
        #expect {
            _ = try ConfigurationLoader.load(yaml: yaml, environment: environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.field == field && error.description.contains(problem)
        }
    }

    @Test("the watcher's webhook secrets may share the worker's environment: not a field, and not an error")
    func webhookSecretsAreNotAField() throws {
        let environment = ["FCM_BRIDGE_WEBHOOK_SECRETS": "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="]
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(yaml: "kafka: {bootstrap_servers: b:1}", environment: environment)
        }
    }

    @Test(
        "delivery.report.only.error is taken where it cannot stop a commit",
        arguments: [
            "kafka: {bootstrap_servers: b:1, producer_properties: {delivery.report.only.error: 'true'}}",
            "kafka: {bootstrap_servers: b:1, properties: {delivery.report.only.error: 'true'}, producer_properties: {delivery.report.only.error: 'false'}}\ndelivery: at_least_once",
            "kafka: {bootstrap_servers: b:1, producer_properties: {delivery.report.only.error: 'false'}}\ndelivery: at_least_once",
        ])
    func reportsOnlyOnErrorAccepted(yaml: String) throws {
        _ = try ConfigurationLoader.load(yaml: yaml, environment: [:])
    }
}
