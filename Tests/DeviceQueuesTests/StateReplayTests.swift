import DeviceQueues
import PropertyBased
import Testing

/// One input to a device, as the worker would feed it.
private enum Input {
    case send(collapseKey: String?, ttl: Int64?)
    case connect
    case disconnect
    case acknowledge(count: Int)
}

@Suite("Device state replay")
struct StateReplayTests {
    @Test("a change names the waiting message it adds or removes, and no other")
    func waitingMessageIDs() {
        let sent = QueuedMessage(id: "m1", collapseKey: nil, sentAt: 1, expiresAt: nil, apns: [0x7B, 0x7D])
        let changes: [(StateChange, String?)] = [
            (.enqueued(sent), "m1"), (.dequeued(messageID: "m2"), "m2"),
            (.awaitingAcknowledgement(messageID: "m3"), nil), (.acknowledgementSettled(messageID: "m4"), nil),
            (.device(DeviceStatus(isOnline: true, lastActivity: 1, pendingNotice: nil)), nil), (.forgotten, nil),
        ]
        for (change, id) in changes { #expect(change.waitingMessageID == id, "\(change)") }
    }

    fileprivate static let input: Generator<Input, some SendableSequenceType> = Gen.int(in: 0...13).map {
        choice -> Input in
        switch choice {
        case 0...4: .send(collapseKey: nil, ttl: nil)
        case 5...8: .send(collapseKey: String(choice), ttl: nil)
        case 9: .send(collapseKey: nil, ttl: 5 * 3_600_000)
        case 10: .connect
        case 11: .disconnect
        default: .acknowledge(count: 2)
        }
    }

    @Test(
        "replaying the recorded changes rebuilds the same state, whatever the inputs; and so does replaying any tail of them again, as a record replayed twice"
    )
    func replayRebuildsState() async {
        await propertyCheck(
            count: 300, input: Self.input.array(of: 0...400), Gen.int(in: 1...30), Gen.int(in: 0...2_000)
        ) {
            inputs, maxPending, tailStart in
            var rules = QueueRules()
            rules.maxPending = maxPending
            rules.maxCollapseKeys = 2
            rules.acknowledgementWindow = 5
            let start: Int64 = 1_700_000_000_000
            var live = DeviceQueue(firstSeenAt: start)
            var replayed = DeviceQueue(status: live.status)
            var dispatched: [String] = []
            var changes: [StateChange] = []
            for (index, input) in inputs.enumerated() {
                // Hours apart, with a jump past the inactivity limit now and then.
                let time = start + Int64(index) * 3_600_000 + (index % 97 == 96 ? rules.inactiveAfter : 0)
                let output: QueueOutput
                switch input {
                case .send(let key, let ttl):
                    let message = QueuedMessage(
                        id: "m\(index)", collapseKey: key, sentAt: time, expiresAt: ttl.map { time + $0 },
                        apns: [1, 2, 3])
                    output = live.send(message, at: time, rules: rules)
                case .connect: output = live.connect(at: time, rules: rules)
                case .disconnect: output = live.disconnect(at: time)
                case .acknowledge(let count):
                    output = live.acknowledge(Array(dispatched.suffix(count + 5).prefix(count)) + ["unknown"], at: time)
                }
                dispatched += output.inbox.compactMap { if case .message(let message) = $0 { message.id } else { nil } }
                for change in output.changes { replayed.apply(change) }
                changes += output.changes
                #expect(replayed == live)
            }
            for change in changes[min(tailStart, changes.count)...] { replayed.apply(change) }
            #expect(replayed == live, "the changes from \(tailStart) on, replayed again")
        }
    }

    @Test("a change costs O(1) in the queue's length: a full queue is never rewritten")
    func changesPerEvent() {
        var queue = DeviceQueue(firstSeenAt: 0)
        let rules = QueueRules()
        for index in 0..<99 {
            _ = queue.send(
                QueuedMessage(id: "m\(index)", collapseKey: nil, sentAt: 0, expiresAt: nil, apns: [1]), at: 0,
                rules: rules)
        }
        let send = queue.send(
            QueuedMessage(id: "m99", collapseKey: nil, sentAt: 1, expiresAt: nil, apns: [1]), at: 1, rules: rules)
        #expect(send.changes.count == 1)
        let collapsible = queue.send(
            QueuedMessage(id: "k", collapseKey: "k", sentAt: 2, expiresAt: nil, apns: [1]), at: 2, rules: rules)
        #expect(collapsible.changes.count == 1)
        let replacing = queue.send(
            QueuedMessage(id: "k2", collapseKey: "k", sentAt: 3, expiresAt: nil, apns: [1]), at: 3, rules: rules)
        #expect(replacing.changes.count == 2)
        #expect(queue.disconnect(at: 4).changes.count == 1)
        #expect(queue.acknowledge(["unknown"], at: 5).changes.count == 1)
        #expect(queue.waiting.count == 101)
    }
}
