import DeviceQueues
import PropertyBased
import Testing

@testable import BridgeCore

/// ``RecordProcessor/devices(namedBy:)`` names every device a record's processing reads or
/// changes: processed with only those devices held, every record of a run writes the same
/// outputs and leaves those devices as processing with every device held does, and makes no
/// other device. That is what lets a worker serve from a store, reading a batch's devices first.
@Suite("The devices a record names")
struct NamedDevicesTests {
    typealias Network = FanOutFlowTests.Network

    @Test(
        "each record of a run, processed with only the devices it names, writes what it writes with every device held",
        arguments: [false, true])
    func namedDevicesSuffice(colocated: Bool) async {
        let inputs = Gen.int(in: 0...999).array(of: 1...30)
        await propertyCheck(count: 60, input: inputs, inputs) { first, second in
            var network = Network(subscriptions: [], colocated: colocated)
            // Two rounds, each run to its end: the second's sends reach the first's subscribers.
            for (index, choice) in first.enumerated() {
                CommittedRestoreTests.input(choice, index: index, to: &network)
            }
            Self.checkEachRecord(of: &network)
            for (index, choice) in second.enumerated() {
                CommittedRestoreTests.input(choice, index: first.count + index, to: &network)
            }
            Self.checkEachRecord(of: &network)
        }
    }

    @Test("a subscribe names the devices in no topic yet, an unsubscribe every device it names")
    func subscriptionsName() {
        var network = Network(subscriptions: [], colocated: false)
        network.subscription(SubscriptionFlowTests.subscribe("news", ["a", "b"]), at: FanOutFlowTests.time)
        network.run()
        for (action, expected) in [("subscribe", ["c"]), ("unsubscribe", ["a", "c"])] {
            network.subscription(
                SubscriptionFlowTests.subscribe("sport", ["a", "c"], action: action), at: FanOutFlowTests.time)
            _ = network.step()  // the request: its devices' hops wait
            let processor = network.worker.processor
            let named = network.pending.flatMap {
                processor.devices(namedBy: processor.decode($0), topics: network.worker.states.topics)
            }
            #expect(named.sorted() == expected, "\(action)")
            network.run()
        }
    }

    /// Processes every record waiting in `network`, each also with only the devices it names held,
    /// and expects the same outputs and devices.
    static func checkEachRecord(of network: inout Network) {
        while let input = network.pending.first {
            let processor = network.worker.processor
            let decoded = processor.decode(input)
            let named = Set(
                processor.devices(namedBy: decoded, topics: network.worker.states.topics).map { DeviceKey(token: $0) })
            var onlyNamed = network.worker.states
            for partition in onlyNamed.partitions.keys {
                onlyNamed.partitions[partition] = onlyNamed.partitions[partition]?.filter {
                    partition == input.partition && named.contains($0.key)
                }
            }
            var outputs = OutputRecords()
            processor.process(known: input, states: &onlyNamed, outputs: &outputs)
            let before = network.worker.states.partitions
            let written = network.written.count
            _ = network.step()
            let expected = network.written[written...]
            #expect(outputs.copies.map(Self.fields) == expected.map(Self.fields), "\(input.position)")
            for (partition, devices) in network.worker.states.partitions {
                // What the record changed, and no other device, is what it left in the named ones.
                var merged = (before[partition] ?? [:]).filter {
                    partition != input.partition || !named.contains($0.key)
                }
                merged.merge(onlyNamed.partitions[partition] ?? [:]) { _, named in named }
                #expect(merged == devices, "\(input.position), partition \(partition)")
            }
        }
    }

    /// A record's parts as text, comparable.
    static func fields(_ copy: OutputRecords.Copy) -> String {
        let text = { (bytes: [UInt8]?) in bytes.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
        return "\(copy.topic) \(copy.partition.map(String.init) ?? "-") \(copy.timestamp ?? -1) \(text(copy.key)) "
            + "\(text(copy.value)) \(copy.headers.map { "\($0.name)=\(text($0.value))" })"
    }
}
