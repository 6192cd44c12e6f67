// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "fcm-bridge",
    platforms: [.macOS("26.0")],  // FieldReader keeps its table in an InlineArray
    products: [
        .executable(name: "fcm-bridge", targets: ["FCMBridge"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "FCMTranslation", targets: ["FCMTranslation"]),
        .library(name: "FCMBridgeClient", targets: ["FCMBridgeClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ],
    targets: [
        // The C module: librdkafka's API, found through pkg-config.
        .systemLibrary(
            name: "CRDKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        // RocksDB's C API, found through pkg-config (scripts/ensure-rocksdb.sh).
        .systemLibrary(
            name: "CRocksDB",
            pkgConfig: "rocksdb",
            providers: [.apt(["librocksdb-dev"])]
        ),
        // A small Swift Kafka layer over librdkafka. Knows nothing of FCM.
        .target(
            name: "Kafka",
            dependencies: [
                "CRDKafka",
                "SecretProperties",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Which librdkafka properties are secret: shared by the Kafka layer and the configuration.
        .target(name: "SecretProperties"),
        // FCM request decoding and APNs translation: pure, no Kafka.
        .target(name: "FCMTranslation"),
        // Per-device queues: FCM's queueing rules as a pure state machine, no Kafka.
        .target(name: "DeviceQueues"),
        // The YAML configuration of `fcm-bridge run`, with environment overrides.
        .target(
            name: "BridgeConfig",
            dependencies: ["DeviceQueues", "SecretProperties", .product(name: "Yams", package: "Yams")]
        ),
        // The pure half of the worker: intake, routing, the encoding of every output record and
        // the changelog codec, with no Kafka in it.
        .target(
            name: "BridgeCore",
            dependencies: [
                "FCMTranslation",
                "DeviceQueues",
                "BridgeConfig",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The local state store: each state partition's changelog, compacted into SQLite with the
        // offset it covers, so that a restart replays only the changelog's tail. No Kafka.
        .target(
            name: "BridgeStore",
            dependencies: [
                "BridgeCore",
                "DeviceStore",
                "DeviceQueues",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Each state partition's devices as rows keyed by token in RocksDB, with the changelog
        // offset they cover: the store the worker is to serve its state from. No Kafka.
        .target(
            name: "DeviceStore",
            dependencies: ["CRocksDB", "BridgeCore", "DeviceQueues", "FCMTranslation"]
        ),
        // The worker: the loop, commits, restore and topics, wiring Kafka to the pure half.
        .target(
            name: "BridgeWorker",
            dependencies: [
                "BridgeCore",
                "BridgeStore",
                "Kafka",
                "FCMTranslation",
                "DeviceQueues",
                "BridgeConfig",
                "BridgeHealth",
                "SecretProperties",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The operator's HTTP endpoints: /metrics (Prometheus), /healthz, /readyz.
        // What a process's health endpoints answer from, shared by the worker and the watcher.
        .target(name: "BridgeHealth"),
        .target(
            name: "BridgeEndpoints",
            dependencies: [
                "BridgeConfig",
                "BridgeHealth",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The app-server side: typed send requests to the send topic, and the status topic as
        // an AsyncSequence of typed events, committed after the caller has handled each.
        .target(
            name: "FCMBridgeClient",
            dependencies: [
                "Kafka",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // `fcm-bridge watch`: status events to an app server's webhook, signed, retried, parked.
        .target(
            name: "BridgeWatch",
            dependencies: [
                "FCMBridgeClient",
                "Kafka",
                "BridgeHealth",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `fcm-bridge gateway`: FCM's HTTP server API and Google's token endpoint, over the topics.
        .target(
            name: "BridgeGateway",
            dependencies: [
                "BridgeCore",
                "BridgeConfig",
                "BridgeHealth",
                "FCMTranslation",
                "Kafka",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `fcm-bridge demo`: simulated devices and an app server against a running bridge.
        .target(
            name: "BridgeDemo",
            dependencies: [
                "Kafka", "FCMBridgeClient", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The `fcm-bridge` executable.
        .executableTarget(
            name: "FCMBridge",
            dependencies: [
                "Kafka",
                "FCMTranslation",
                "BridgeCore",
                "BridgeConfig",
                "BridgeWorker",
                "BridgeEndpoints",
                "FCMBridgeClient",
                "BridgeDemo",
                "BridgeWatch",
                "BridgeGateway",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Throughput of the Kafka layer against raw librdkafka on the same broker.
        .executableTarget(
            name: "KafkaBenchmark",
            dependencies: [
                "Kafka",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/KafkaBenchmark"
        ),
        // Translation throughput against a bare JSON parse-and-serialize floor.
        .executableTarget(
            name: "TranslationBenchmark",
            dependencies: ["FCMTranslation"],
            path: "Benchmarks/TranslationBenchmark",
            // Read by scripts/benchmark.sh, not built.
            exclude: ["requests", "orjson_baseline.py"]
        ),
        // The worker's processing path without Kafka, for callgrind's instruction counts.
        .executableTarget(
            name: "ProcessingBenchmark",
            dependencies: [
                "BridgeCore", "BridgeConfig",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/ProcessingBenchmark"
        ),
        // Changelog records replayed per second against a plain read of the same changelog.
        .executableTarget(
            name: "RestoreBenchmark",
            dependencies: [
                "BridgeWorker", "BridgeCore", "BridgeConfig", "BridgeStore", "Kafka",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/RestoreBenchmark"
        ),
        // Device rows written, read and loaded through DeviceStore against RocksDB's C API.
        .executableTarget(
            name: "DeviceRowsBenchmark",
            dependencies: ["DeviceStore", "BridgeCore", "DeviceQueues", "FCMTranslation", "CRocksDB"],
            path: "Benchmarks/DeviceRowsBenchmark"
        ),
        // Resident memory per waiting message against the payload bytes alone.
        .executableTarget(
            name: "MemoryBenchmark",
            dependencies: ["BridgeCore", "DeviceQueues", "FCMTranslation"],
            path: "Benchmarks/MemoryBenchmark"
        ),
        // Coverage-guided fuzzing of the pure half: `scripts/fuzz.sh coverage` builds it with
        // libFuzzer; a plain build replays inputs (the seed corpus and regressions, in the suite).
        .executableTarget(
            name: "BridgeFuzzer",
            dependencies: [
                "BridgeCore", "BridgeConfig", "DeviceQueues", "FCMTranslation",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/BridgeFuzzer"
        ),
        // Shared by the test targets: the test cluster and its skip trait, unique names, the test
        // logger, time constants, eventually, reading topics back.
        .target(
            name: "TestSupport",
            dependencies: [
                "Kafka", "BridgeCore", "BridgeStore", "DeviceStore", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "BridgeConfigTests",
            dependencies: [
                "BridgeConfig", "DeviceQueues", .product(name: "Yams", package: "Yams"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "BridgeIntegrationTests",
            dependencies: [
                "BridgeWorker",
                "BridgeEndpoints",
                "BridgeStore",
                "BridgeCore",
                "BridgeConfig",
                "DeviceQueues",
                "DeviceStore",
                "Kafka",
                "FCMTranslation",
                "TestSupport",
                "FCMBridgeClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BridgeCoreTests",
            dependencies: [
                "BridgeCore", "BridgeConfig", "DeviceQueues", "FCMTranslation", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "BridgeWorkerTests",
            dependencies: [
                "BridgeWorker", "BridgeHealth", "BridgeCore", "BridgeStore", "Kafka", "TestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "BridgeEndpointsTests",
            dependencies: [
                "BridgeEndpoints", "BridgeConfig", .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .testTarget(
            name: "BridgeStoreTests",
            dependencies: [
                "BridgeStore", "BridgeCore", "DeviceQueues", "DeviceStore", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "DeviceStoreTests",
            dependencies: [
                "DeviceStore", "BridgeCore", "DeviceQueues", "CRocksDB", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "BridgeDemoTests",
            dependencies: [
                "BridgeDemo", "FCMBridgeClient", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "FCMBridgeClientTests", dependencies: ["FCMBridgeClient"]),
        .testTarget(
            name: "BridgeGatewayTests",
            dependencies: [
                "BridgeGateway", .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "BridgeWatchTests", dependencies: ["BridgeWatch"]),
        .testTarget(
            name: "KafkaTests",
            dependencies: [
                "Kafka", "CRDKafka", "TestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "FCMTranslationTests",
            dependencies: ["FCMTranslation", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "DeviceQueuesTests",
            dependencies: [
                "DeviceQueues", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "KafkaIntegrationTests",
            dependencies: [
                "Kafka",
                "BridgeCore",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
