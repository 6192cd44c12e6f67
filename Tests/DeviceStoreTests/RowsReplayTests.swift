import DeviceQueues
import DeviceStore
import PropertyBased
import TestSupport
import Testing

@Suite("Changelog changes applied to device rows")
struct RowsReplayTests {
    /// Four devices' inputs (`choice % 4` picks the device; `choice / 4` a send, a keyed send, a
    /// connect, a disconnect, an acknowledgement, a forgetting, or tombstones for a device not
    /// held: that one if it is not, else a fifth that never is), and the changes they record in
    /// order, as the worker records them: a device's first input records its status first.
    static func run(_ choices: [Int]) -> (live: [String: DeviceQueue], changes: [(token: String, change: StateChange)])
    {
        var rules = QueueRules()
        rules.maxPending = 3
        rules.maxCollapseKeys = 2
        rules.acknowledgementWindow = 4
        var live: [String: DeviceQueue] = [:]
        var changes: [(token: String, change: StateChange)] = []
        var dispatched: [String] = []
        for (index, choice) in choices.enumerated() {
            let token = "t\(choice % 4)"
            let time = Int64(index) * 3_600_000
            if choice / 4 % 7 == 6 {
                // Tombstones for a device not held, as compaction can leave them: they create none.
                let gone = live[token] == nil ? token : "t4"
                changes += [(gone, .dequeued(messageID: "m0")), (gone, .acknowledgementSettled(messageID: "m0"))]
                continue
            }
            if live[token] == nil {
                live[token] = DeviceQueue(firstSeenAt: time)
                changes.append((token, .device(DeviceQueue(firstSeenAt: time).status)))
            }
            guard var device = live[token] else { continue }
            let output: QueueOutput
            switch choice / 4 % 7 {
            case 0, 1:
                let message = QueuedMessage(
                    id: "m\(index)", collapseKey: choice / 4 % 7 == 1 ? "k\(index % 3)" : nil, sentAt: time,
                    expiresAt: nil, apns: [0x7B, 0x7D])
                output = device.send(message, at: time, rules: rules)
            case 2: output = device.connect(at: time, rules: rules)
            case 3: output = device.disconnect(at: time)
            case 4: output = device.acknowledge(Array(dispatched.suffix(2)), at: time)
            default:
                changes += device.forgettingChanges.map { (token, $0) }
                live[token] = nil
                continue
            }
            dispatched += output.inbox.compactMap { if case .message(let message) = $0 { message.id } else { nil } }
            changes += output.changes.map { (token, $0) }
            live[token] = device
        }
        return (live, changes)
    }

    @Test(
        "applied in parts of any size, in batches or table files, the changes leave each device's rows equal to the live device, and none once forgotten"
    )
    func rowsFollowTheDevices() async {
        await propertyCheck(
            count: 40, input: Gen.int(in: 0...111).array(of: 0...160), Gen.int(in: 1...50), Gen.int(in: 0...2)
        ) { choices, batchSize, writes in
            let (live, changes) = Self.run(choices)
            let directory = TemporaryDirectory()
            do {
                let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
                // Each part in a batch (0), each as a table file (1), or the two in turn (2).
                for (part, start) in stride(from: 0, to: changes.count, by: batchSize).enumerated() {
                    let end = min(start + batchSize, changes.count)
                    let inBulk = writes == 1 || (writes == 2 && part % 2 == 1)
                    try rows.apply(Array(changes[start..<end]), checkpoint: Int64(end), inBulk: inBulk)
                }
                for token in (0..<5).map({ "t\($0)" }) {
                    #expect(try rows.device(token) == live[token], "\(token) after \(choices)")
                }
                // A scan of every row also meets rows a device left behind, and refuses them.
                var scanned: [String: DeviceQueue] = [:]
                try rows.forEachDevice { scanned[$0] = $1 }
                #expect(scanned == live, "\(choices)")
                #expect(try rows.checkpoint() == (changes.isEmpty ? nil : Int64(changes.count)))
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
