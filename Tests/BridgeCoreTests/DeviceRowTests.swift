import BridgeCore
import DeviceQueues
import FCMTranslation
import PropertyBased
import Testing

@Suite("A device as rows")
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

    /// `device`'s head row and its messages' rows by id.
    static func rows(of device: DeviceQueue) -> (head: [UInt8], messages: [String: [UInt8]]) {
        var writer = ByteWriter(capacity: 256)
        DeviceRow.writeHead(device, to: &writer)
        let head = writer.withUnsafeBytes { Array($0) }
        var messages: [String: [UInt8]] = [:]
        for message in device.waiting {
            writer.truncate(to: 0)
            DeviceRow.writeMessage(message, to: &writer)
            messages[message.id] = writer.withUnsafeBytes { Array($0) }
        }
        return (head, messages)
    }

    /// The device `head` and `messages`' rows make.
    static func read(head: [UInt8], messages: [String: [UInt8]]) -> Result<DeviceQueue, MalformedRecord> {
        Result { () throws(MalformedRecord) in
            let parts = try head.withUnsafeBytes { bytes in
                Result { () throws(MalformedRecord) in try DeviceRow.readHead(bytes) }
            }.get()
            var read: [String: QueuedMessage] = [:]
            for (id, row) in messages {
                read[id] = try row.withUnsafeBytes { bytes in
                    Result { () throws(MalformedRecord) in try DeviceRow.readMessage(id: id, bytes) }
                }.get()
            }
            return try parts.device(messages: read)
        }
    }

    @Test("rows read back as the device they were written from, whatever the device went through")
    func roundTrip() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...255).array(of: 0...120), Gen.int(in: 1...8),
            Gen.int(in: 0...4).map { [Int64.min, -1, 0, 1_700_000_000_000, Int64.max - 1_000][$0] }
        ) { inputs, maxPending, start in
            let device = Self.device(after: inputs, maxPending: maxPending, startingAt: start)
            let (head, messages) = Self.rows(of: device)
            let read = Self.read(head: head, messages: messages)
            #expect((try? read.get()) == device, "\(read)")
        }
    }

    @Test("the parts are all there: messages waiting, ids awaiting ack, a pending notice")
    func partsReached() throws {
        let device = Self.device(after: [0, 2, 3, 0, 4, 0, 1, 2, 0, 0, 0, 0, 0], maxPending: 3, startingAt: 0)
        try #require(device.waiting.count > 0)
        try #require(device.unacknowledged.count > 0)
        try #require(device.pendingNotice != nil)
        let (head, messages) = Self.rows(of: device)
        #expect(try Self.read(head: head, messages: messages).get() == device)
    }

    /// A head of `status`, the ids `ids`, then `tail`.
    static func head(status: [UInt8], ids: [String] = [], tail: [UInt8] = []) -> [UInt8] {
        [2] + framed(status) + count(ids.count) + ids.flatMap { framed(Array($0.utf8)) } + tail
    }

    static func count(_ count: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt32(count).littleEndian) { Array($0) }
    }

    static func framed(_ part: [UInt8]) -> [UInt8] { count(part.count) + part }

    static let status = Array(#"{"last_activity":5,"online":false}"#.utf8)
    static let messageValue = Array(
        #"{"apns":{"aps":{}},"kind":"message","expires_at":null,"collapse_key":null}"#.utf8)
    static let sentAt = withUnsafeBytes(of: Int64(9).littleEndian) { Array($0) }
    /// The row of a message sent at 9 with ``messageValue``.
    static let messageRow = sentAt + messageValue

    @Test(
        "bytes a head is not are refused, naming what is wrong",
        arguments: [
            ([], "is empty"),
            ([1] + framed(status) + count(0), "is of format 1"),
            ([2, 200, 0, 0, 0] + status, "has no readable status"),
            (head(status: Array("{}".utf8)), "has no readable status"),
            ([2] + framed(status) + [1, 0], "no count of waiting messages"),
            ([2] + framed(status) + count(2) + framed([0x78]), "ids cut short"),
            ([2] + framed(status) + count(1) + [9, 0, 0, 0, 0x78], "ids cut short"),
            ([2] + framed(status) + count(Int(UInt32.max)) + framed([0x78]), "ids cut short"),
            (head(status: status, ids: ["x", "y", "x"]), "lists a waiting message twice"),
            (head(status: status, tail: [UInt8(ascii: "d")] + framed([])), "kind byte 100"),
            (head(status: status, tail: [UInt8(ascii: "a")] + count(2) + [0x79]), "ack cut short"),
            (head(status: status, tail: acknowledgementEntry([4, 0x79])), "ids awaiting ack that do not read"),
            (head(status: status, tail: acknowledgementEntry([0x80])), "ids awaiting ack that do not read"),
            (head(status: status, tail: acknowledgementEntry([2, 0x79]) + [0]), "goes on after its ids awaiting ack"),
        ] as [([UInt8], String)]
    )
    func headRefused(head: [UInt8], problem: String) {
        let read = head.withUnsafeBytes { bytes in
            Result { () throws(MalformedRecord) in try DeviceRow.readHead(bytes) }
        }
        guard case .failure(let error) = read else {
            Issue.record("read \(head) as a head")
            return
        }
        #expect(error.description.contains(problem), "\(error)")
    }

    @Test(
        "message rows that do not read, and messages that do not match the head's list, are refused",
        arguments: [
            (["x"], ["x": [1, 2, 3]], "has no send time"),
            (["x"], ["x": sentAt + [1]], "has not its fields"),
            (["x", "y"], ["x": messageRow], "lists 2 waiting messages, and 1 are stored"),
            (["x"], ["x": messageRow, "y": messageRow], "lists 1 waiting messages, and 2 are stored"),
            (["x"], ["y": messageRow], "lists a waiting message that is not stored"),
        ] as [([String], [String: [UInt8]], String)]
    )
    func messagesRefused(ids: [String], messages: [String: [UInt8]], problem: String) {
        let read = Self.read(head: Self.head(status: Self.status, ids: ids), messages: messages)
        guard case .failure(let error) = read else {
            Issue.record("read \(messages) as a device's messages")
            return
        }
        #expect(error.description.contains(problem), "\(error)")
    }

    /// The ids-awaiting-ack entry of `entries` (each a LEB128 header, the length shifted left
    /// once, its low bit for a shared suffix, then the bytes) and `suffix`.
    static func acknowledgementEntry(_ entries: [UInt8], suffix: [UInt8] = []) -> [UInt8] {
        [UInt8(ascii: "a")] + framed(entries) + framed(suffix)
    }

    /// The message ``messageRow`` holds, under `id`.
    static func message(_ id: String) -> QueuedMessage {
        QueuedMessage(id: id, collapseKey: nil, sentAt: 9, expiresAt: nil, apns: Array(#"{"aps":{}}"#.utf8))
    }

    static let offline = DeviceStatus(isOnline: false, lastActivity: 5, pendingNotice: nil)

    @Test("the layout is pinned: a device with two messages and ids awaiting ack is these bytes, and reads back")
    func handWritten() throws {
        let head = Self.head(
            status: Self.status, ids: ["x", "w"],
            tail: Self.acknowledgementEntry([2, 0x79, 3, 0x7A], suffix: Array("/h".utf8)))
        var ids = UnacknowledgedIDs()
        ids.append("y")
        ids.append("z/h")
        let device = DeviceQueue(
            status: Self.offline, waiting: [Self.message("x"), Self.message("w")], unacknowledged: ids)
        let rows = Self.rows(of: device)
        #expect(rows.head == head)
        #expect(rows.messages == ["x": Self.messageRow, "w": Self.messageRow])
        let read = try Self.read(head: head, messages: rows.messages).get()
        #expect(read == device)
        #expect(read.waiting.map(\.id) == ["x", "w"])
        #expect(read.waiting.first?.expiresAt == nil)
        #expect(read.waiting.first?.collapseKey == nil)
        #expect(read.unacknowledged.all == ["y", "z/h"])
    }
}
