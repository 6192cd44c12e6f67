import BridgeCore
import DeviceQueues
import PropertyBased
import Testing

@Suite("A device as one row")
struct DeviceRowTests {
    /// A device after `inputs` (each a choice of send, keyed send, connect, disconnect or
    /// acknowledgement), with odd ids (some with the `/` of a topic copy's), collapse keys and
    /// times, so that every part of a row is reached: waiting messages with and without a key,
    /// ids awaiting `ack` with and without a shared suffix, notices.
    static func device(after inputs: [Int], maxPending: Int, startingAt start: Int64) -> DeviceQueue {
        var rules = QueueRules()
        rules.maxPending = maxPending
        rules.maxCollapseKeys = 2
        rules.acknowledgementWindow = 5
        var device = DeviceQueue(firstSeenAt: start)
        var dispatched: [String] = []
        for (index, choice) in inputs.enumerated() {
            let time = start.addingReportingOverflow(Int64(index) * 3_600_000).partialValue
            let output: QueueOutput
            switch choice % 8 {
            case 0...2:
                let message = QueuedMessage(
                    id: choice % 32 < 12 ? "s\(index)/d\u{E9}vice" : "0:\(index)\u{E9} \"q\"",
                    collapseKey: choice % 8 == 2 ? "k\(choice % 3)\"\u{1F600}" : nil,
                    sentAt: time, expiresAt: choice % 16 < 8 ? nil : time &+ 7_200_000,
                    apns: Array(#"{"aps":{"alert":"m\#(index)"}}"#.utf8))
                output = device.send(message, at: time, rules: rules)
            case 3: output = device.connect(at: time, rules: rules)
            case 4, 5: output = device.disconnect(at: time)
            default: output = device.acknowledge(Array(dispatched.suffix(3).prefix(choice % 3)), at: time)
            }
            dispatched += output.inbox.compactMap { if case .message(let message) = $0 { message.id } else { nil } }
        }
        return device
    }

    @Test("a row reads back as the device it was written from, whatever the device went through")
    func roundTrip() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...255).array(of: 0...120), Gen.int(in: 1...8),
            Gen.int(in: 0...4).map { [Int64.min, -1, 0, 1_700_000_000_000, Int64.max - 1_000][$0] }
        ) { inputs, maxPending, start in
            let device = Self.device(after: inputs, maxPending: maxPending, startingAt: start)
            let row = DeviceRow.write(device)
            let read = row.withUnsafeBytes { bytes in Result { () throws(MalformedRecord) in try DeviceRow.read(bytes) }
            }
            #expect((try? read.get()) == device, "\(read)")
        }
    }

    @Test("the parts are all there: messages waiting, ids awaiting ack, a pending notice")
    func partsReached() throws {
        let device = Self.device(after: [0, 2, 3, 0, 4, 0, 1, 2, 0, 0, 0, 0, 0], maxPending: 3, startingAt: 0)
        try #require(device.waiting.count > 0)
        try #require(device.unacknowledged.count > 0)
        try #require(device.pendingNotice != nil)
        let read = try DeviceRow.write(device).withUnsafeBytes { bytes throws(MalformedRecord) in
            try DeviceRow.read(bytes)
        }
        #expect(read == device)
    }

    /// A row of `status`, then `tail`.
    static func row(status: [UInt8], tail: [UInt8]) -> [UInt8] {
        [1] + length(status) + status + tail
    }

    static func length(_ part: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(part.count).littleEndian) { Array($0) }
    }

    static let status = Array(#"{"last_activity":5,"online":false}"#.utf8)
    static let messageValue = Array(
        #"{"apns":{"aps":{}},"kind":"message","expires_at":null,"collapse_key":null}"#.utf8)
    static let sentAt = withUnsafeBytes(of: Int64(9).littleEndian) { Array($0) }

    @Test(
        "bytes a row is not are refused, naming what is wrong",
        arguments: [
            ([], "is empty"),
            ([2] + length(status) + status, "is of format 2"),
            ([1, 200, 0, 0, 0] + status, "has no readable status"),
            (row(status: Array("{}".utf8), tail: []), "has no readable status"),
            (row(status: status, tail: [UInt8(ascii: "m"), 1, 0]), "a waiting message cut short"),
            (
                row(status: status, tail: [UInt8(ascii: "m"), 1, 0, 0, 0, UInt8(ascii: "x")]),
                "a waiting message cut short"
            ),
            (
                row(
                    status: status, tail: [UInt8(ascii: "m")] + length([0x78]) + [0x78] + sentAt + [255, 255, 255, 255]),
                "a waiting message cut short"
            ),
            (
                row(status: status, tail: [UInt8(ascii: "m")] + length([0x78]) + [0x78] + sentAt + length([1]) + [1]),
                "without its fields"
            ),
            (row(status: status, tail: [UInt8(ascii: "d")] + length([])), "kind byte 100"),
            (row(status: status, tail: [UInt8(ascii: "a")] + length([2, 0x79])), "ack cut short"),
            (row(status: status, tail: acknowledgementEntry([4, 0x79])), "ids awaiting ack that do not read"),
            (row(status: status, tail: acknowledgementEntry([0x80])), "ids awaiting ack that do not read"),
            (row(status: status, tail: acknowledgementEntry([2, 0x79]) + acknowledgementEntry([])), "ack twice"),
        ] as [([UInt8], String)]
    )
    func refused(row: [UInt8], problem: String) {
        let read = row.withUnsafeBytes { bytes in Result { () throws(MalformedRecord) in try DeviceRow.read(bytes) } }
        guard case .failure(let error) = read else {
            Issue.record("read \(row) as a device")
            return
        }
        #expect(error.description.contains(problem), "\(error)")
    }

    /// A waiting message entry of id `id`, sent at 9, with ``messageValue``.
    static func messageEntry(_ id: String) -> [UInt8] {
        [UInt8(ascii: "m")] + length(Array(id.utf8)) + Array(id.utf8) + sentAt + length(messageValue) + messageValue
    }

    /// The ids-awaiting-ack entry of `entries` (each a LEB128 header, the length shifted left
    /// once, its low bit for a shared suffix, then the bytes) and `suffix`.
    static func acknowledgementEntry(_ entries: [UInt8], suffix: [UInt8] = []) -> [UInt8] {
        [UInt8(ascii: "a")] + length(entries) + entries + length(suffix) + suffix
    }

    /// The message ``messageEntry(_:)`` holds.
    static func message(_ id: String) -> QueuedMessage {
        QueuedMessage(id: id, collapseKey: nil, sentAt: 9, expiresAt: nil, apns: Array(#"{"aps":{}}"#.utf8))
    }

    static let offline = DeviceStatus(isOnline: false, lastActivity: 5, pendingNotice: nil)

    @Test("the layout is pinned: a device with a message and an id awaiting ack is these bytes, and reads back")
    func handWritten() throws {
        let row = Self.row(
            status: Self.status,
            tail: Self.messageEntry("x") + Self.acknowledgementEntry([2, 0x79, 3, 0x7A], suffix: Array("/h".utf8)))
        var ids = UnacknowledgedIDs()
        ids.append("y")
        ids.append("z/h")
        let device = DeviceQueue(status: Self.offline, waiting: [Self.message("x")], unacknowledged: ids)
        #expect(DeviceRow.write(device) == row)
        let read = try row.withUnsafeBytes { bytes throws(MalformedRecord) in try DeviceRow.read(bytes) }
        #expect(read == device)
        #expect(read.waiting.first?.expiresAt == nil)
        #expect(read.waiting.first?.collapseKey == nil)
        #expect(read.unacknowledged.all == ["y", "z/h"])
    }

    @Test("a message id given more than once reads as a replay of the entries reads: the last one counts, in its place")
    func repeatsReadAsReplay() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...3).array(of: 0...30)) { choices in
            var tail: [UInt8] = []
            var replayed = DeviceQueue(status: Self.offline)
            for choice in choices {
                tail += Self.messageEntry("id\(choice)")
                replayed.apply(.enqueued(Self.message("id\(choice)")))
            }
            let row = Self.row(status: Self.status, tail: tail)
            let read = row.withUnsafeBytes { bytes in Result { () throws(MalformedRecord) in try DeviceRow.read(bytes) }
            }
            #expect((try? read.get()) == replayed, "\(choices)")
        }
    }
}
