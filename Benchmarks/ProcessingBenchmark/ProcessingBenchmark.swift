import BridgeConfig
import BridgeCore
import Logging
import NIOCore

/// The worker's processing path without Kafka: send and presence records, built in memory, go
/// through the worker's own `RecordProcessor` (decode, translate, route, queue, encode every
/// output) against its device state. Meant for valgrind's callgrind, whose instruction counts
/// are repeatable where wall time is not: `scripts/benchmark.sh processing` runs it for two
/// request counts and reports the instructions per request of the difference.
///
/// Usage: ProcessingBenchmark REQUESTS [DEVICES [BUILT]]. Half the devices connect first; requests
/// are a mix of HTTP v1 notifications, legacy notifications and legacy data-only messages. BUILT
/// requests (default REQUESTS) are built, and the first REQUESTS of them processed, so that two
/// runs with the same BUILT differ only in the processing.
@main
enum ProcessingBenchmark {
    static let partitions: Int32 = 4

    static func main() throws {
        let arguments = CommandLine.arguments
        let requests = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
        let devices = max(2, arguments.count > 2 ? Int(arguments[2]) ?? 2_000 : 2_000)
        let built = max(requests, arguments.count > 3 ? Int(arguments[3]) ?? requests : requests)
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.bundleID = "com.example.app"
        let topics = configuration.topics
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: partitions,
            colocatedTopics: [topics.send, topics.presence],
            logger: Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        var states = DeviceStates()
        for partition in 0..<partitions { states.adopt(partition) }

        let time: Int64 = 1_700_000_000_000
        var inputs: [InMemoryRecord] = []
        inputs.reserveCapacity(devices / 2 + built)
        for device in 0..<devices / 2 {
            inputs.append(
                record(
                    topics.presence, token(device), #"{"token":"\#(token(device))","event":"connect"}"#,
                    offset: Int64(device), time: time))
        }
        for index in 0..<built {
            let device = (index &* 7_919) % devices
            inputs.append(
                record(
                    topics.send, token(device), request(token(device), index), offset: Int64(index),
                    time: time + Int64(index)))
        }

        var produced = OutputRecords()
        var outputs = 0
        for input in inputs.prefix(devices / 2 + requests) {
            try processor.process(input, states: &states, outputs: &produced)
            // Handed to the producer in runs, as the worker does.
            if produced.count >= 2_000 {
                outputs += produced.count
                produced.removeAll()
            }
        }
        outputs += produced.count
        print("inputs \(devices / 2 + requests) outputs \(outputs)")
    }

    /// An FCM-like 163-character registration token.
    static func token(_ device: Int) -> String {
        let suffix = String(device, radix: 16)
        return "fMEP0vJqS0:APA91bH" + String(repeating: "x", count: 163 - 18 - suffix.count) + suffix
    }

    /// A request of about 300 bytes: HTTP v1, legacy notification, or legacy data-only, in turn.
    static func request(_ token: String, _ index: Int) -> String {
        switch index % 3 {
        case 0:
            #"{"message":{"token":"\#(token)","notification":{"title":"New message from Alice","body":"Are we still on for lunch tomorrow? \#(index)"},"data":{"conversation_id":"c-\#(index)","sender":"alice"},"apns":{"headers":{"apns-priority":"10"}}}}"#
        case 1:
            #"{"to":"\#(token)","notification":{"title":"New message from Bob","body":"The build is green again \#(index)","badge":"3","sound":"default"},"data":{"conversation_id":"c-\#(index)"},"priority":"high"}"#
        default:
            #"{"to":"\#(token)","data":{"sync":"inbox","cursor":"\#(index)","kind":"delta"},"content_available":true}"#
        }
    }

    /// A record as the consumer would return it, on the partition the device's state lives in.
    static func record(_ topic: String, _ token: String, _ value: String, offset: Int64, time: Int64) -> InMemoryRecord
    {
        InMemoryRecord(
            topic: topic, partition: Murmur2Partitioner.partition(of: token.utf8, partitions: partitions),
            offset: offset, key: ByteBuffer(string: token), value: ByteBuffer(string: value), createTime: time
        )
    }
}
