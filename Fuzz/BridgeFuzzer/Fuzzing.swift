import BridgeConfig
import BridgeCore
import FCMTranslation
import Logging

/// Coverage-guided fuzzing of the pure half of the bridge: the request decoder and translator,
/// the record processor with its queues and repartition hop, the changelog codec and the rows of
/// a store keyed by device.
///
/// `scripts/fuzz.sh coverage` builds this target with `-sanitize=fuzzer,address` and `-D FUZZING`, and
/// libFuzzer calls ``fuzzOneInput(_:_:)`` with inputs it mutates towards new coverage. The first
/// byte of an input picks the harness. A harness traps when the bridge breaks a promise, which
/// is the finding: outside the fuzzer, no input may reach a trap in the bridge's own code.
enum Fuzzing {
    /// Outputs as large as the smallest producer limit the bridge accepts, so that the bounds
    /// are reached by inputs of a few kilobytes.
    static let limits = OutputLimits(maxRecordBytes: 65_536)

    /// The harnesses' configuration: small queues and a short inactivity limit, so that short
    /// inputs reach every rule.
    static let configuration: BridgeConfiguration = {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.bundleID = "com.example.fuzz"
        configuration.queue.maxPending = 3
        configuration.queue.maxCollapseKeys = 2
        configuration.queue.inactiveAfter = 3_600_000
        return configuration
    }()

    /// A silent processor of ``configuration`` over `statePartitions` partitions, its send and
    /// presence topics partitioned like the state, its outputs within ``limits``.
    static func processor(statePartitions: Int32) -> RecordProcessor {
        RecordProcessor(
            configuration: configuration, statePartitions: statePartitions,
            colocatedTopics: [configuration.topics.send, configuration.topics.presence],
            limits: limits, logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    /// Runs the harness `input`'s first byte picks on the rest of it.
    static func run(_ input: ArraySlice<UInt8>) {
        guard let selector = input.first else { return }
        let rest = input.dropFirst()
        switch selector % 4 {
        case 0: RequestHarness.run(rest)
        case 1: ProcessorHarness.run(rest)
        case 2: ChangelogHarness.run(rest)
        default: DeviceRowHarness.run(rest)
        }
    }

    /// Processes `record`, an input from outside or a record the processor wrote: none of them
    /// may be refused as a newer version's.
    static func process(
        _ record: some InputRecord, with processor: RecordProcessor, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        do {
            try processor.process(record, states: &states, outputs: &outputs)
        } catch {
            fatalError("finding: \(error)")
        }
    }

    /// Stops the fuzzer with `finding` unless `condition` holds.
    static func expect(_ condition: Bool, _ finding: @autoclosure () -> String) {
        if !condition { fatalError("finding: \(finding())") }
    }

    /// Stops the fuzzer unless `bytes` is a JSON object of at most `limits.maxRecordBytes`.
    static func expectJSONObject(_ bytes: [UInt8], _ what: String) {
        expect(bytes.count <= limits.maxRecordBytes, "\(what) of \(bytes.count) bytes")
        guard case .object? = try? JSONParser.parse(bytes) else {
            fatalError("finding: \(what) is not a JSON object: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
    }
}

#if FUZZING
    /// libFuzzer's entry point.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        Fuzzing.run(ArraySlice(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// SwiftPM links an executable's `main` to `<module>_main`: here that starts libFuzzer's driver.
    @_cdecl("BridgeFuzzer_main")
    public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var argc = argc
        var argv = argv
        return runFuzzerDriver(&argc, &argv, fuzzOneInput)
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
