import PropertyBased
import Testing

@testable import DeviceQueues

/// One change to a list of waiting messages.
private enum Change {
    case append(id: Int, collapsible: Bool, expiresAt: Int64?)
    case remove(at: Int)
    case removeExpired(by: Int64)
    case removeAll
}

@Suite("Waiting messages and their hints")
struct WaitingMessagesTests {
    fileprivate static let change: Generator<Change, some SendableSequenceType> = zip(
        Gen.int(in: 0...9), Gen.int(in: 0...40), Gen.int(in: 0...2_000)
    ).map { choice, id, time -> Change in
        switch choice {
        case 0...4: .append(id: id, collapsible: choice == 4, expiresAt: choice == 3 ? nil : Int64(time))
        case 5, 6: .remove(at: id)
        case 7, 8: .removeExpired(by: Int64(time) / 4)
        default: .removeAll
        }
    }

    @Test("the hints say what the messages are after any changes, and the list does what an array does")
    func hintsFollowTheMessages() async {
        await propertyCheck(count: 400, input: Self.change.array(of: 0...120)) { changes in
            var waiting = WaitingMessages()
            var model: [QueuedMessage] = []
            for change in changes {
                switch change {
                case .append(let id, let collapsible, let expiresAt):
                    let message = QueuedMessage(
                        id: "\(id):\(id * 7):0", collapseKey: collapsible ? "k\(id)" : nil, sentAt: 0,
                        expiresAt: expiresAt, apns: [1])
                    waiting.append(message)
                    model.append(message)
                case .remove(let index):
                    guard !model.isEmpty else { continue }
                    #expect(waiting.remove(at: index % model.count) == model.remove(at: index % model.count))
                case .removeExpired(let time):
                    let isExpired = { (message: QueuedMessage) in message.expiresAt.map { $0 <= time } ?? false }
                    #expect(waiting.removeExpired(by: time) == model.filter(isExpired))
                    model.removeAll(where: isExpired)
                case .removeAll:
                    #expect(waiting.removeAll() == model)
                    model = []
                }
                #expect(Array(waiting) == model)
                for limit in 0...4 {
                    #expect(waiting.hasPlain(atLeast: limit) == (model.count { !$0.isCollapsible } >= limit))
                }
                #expect(model.allSatisfy { $0.expiresAt.map { waiting.expiresNoEarlierThan <= $0 } ?? true })
                for id in 0...40 {
                    let text = "\(id):\(id * 7):0"
                    let probe = QueuedMessage(id: text, collapseKey: nil, sentAt: 0, expiresAt: nil, apns: [])
                    #expect(waiting.contains(idOf: probe) == model.contains { $0.hasID(text) })
                }
                // Every waiting id's bit is set; an emptied list has none.
                #expect(model.reduce(0) { $0 | $1.idBit } & ~waiting.idBits == 0)
                if model.isEmpty { #expect(waiting.idBits == 0 && waiting.expiresNoEarlierThan == .max) }
            }
        }
    }

    @Test("a message's id bit is one bit, the same for the same id bytes, and ids spread over the bits")
    func idBits() {
        let bits = (0..<640).map {
            QueuedMessage(id: "3:\($0):0", collapseKey: nil, sentAt: 0, expiresAt: nil, apns: []).idBit
        }
        #expect(bits.allSatisfy { $0.nonzeroBitCount == 1 })
        #expect(
            bits
                == (0..<640).map {
                    QueuedMessage(id: "3:\($0):0", collapseKey: "k", sentAt: 5, expiresAt: 9, apns: [7]).idBit
                })
        // 640 sequential ids over 64 bits: every bit is taken, none by more than a quarter of them.
        let counts = Dictionary(grouping: bits, by: { $0 }).mapValues(\.count)
        #expect(counts.count == 64 && counts.values.allSatisfy { $0 < 160 })
    }

    @Test("lists are equal when their messages are, whatever their hints say of removed ones")
    func equalityIgnoresHints() {
        let kept = QueuedMessage(id: "1:1:0", collapseKey: nil, sentAt: 0, expiresAt: 100, apns: [1])
        let removed = QueuedMessage(id: "1:2:0", collapseKey: nil, sentAt: 0, expiresAt: 5, apns: [2])
        var live = WaitingMessages()
        live.append(kept)
        live.append(removed)
        _ = live.remove(at: 1)
        var restored = WaitingMessages()
        restored.append(kept)
        #expect(live == restored && live.hashValue == restored.hashValue)
        #expect(live.expiresNoEarlierThan == 5 && restored.expiresNoEarlierThan == 100)
    }
}
