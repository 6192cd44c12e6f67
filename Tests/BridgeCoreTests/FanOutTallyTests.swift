import PropertyBased
import Testing

@testable import BridgeCore

/// The coordinator's count of a fan-out: complete once every walk has ended and every record
/// it sent is acknowledged, whatever the order, and once.
@Suite("Fan-out tally")
struct FanOutTallyTests {
    typealias Chunk = FanOutTally.Chunk

    @Test("a topic with no subscribers completes with count 0 as soon as its walk ends")
    func noSubscribers() {
        var tally = FanOutTally(topics: 1)
        #expect(tally.jobFinished(topic: 0, records: 0) == .complete(count: 0))
        #expect(tally.jobFinished(topic: 0, records: 0) == .done)
    }

    @Test("acknowledgements before the walk ends wait for it; the count is their sum")
    func acknowledgementsFirst() {
        var tally = FanOutTally(topics: 1)
        #expect(tally.acknowledged(Chunk(topic: 0, sequence: 0, partition: 1), accepted: 3) == .pending)
        #expect(tally.acknowledged(Chunk(topic: 0, sequence: 0, partition: 2), accepted: 2) == .pending)
        #expect(tally.jobFinished(topic: 0, records: 3) == .pending)
        #expect(tally.acknowledged(Chunk(topic: 0, sequence: 1, partition: 1), accepted: 0) == .complete(count: 5))
    }

    @Test("every topic's walk must end, even when the acknowledged records add up")
    func everyTopic() {
        var tally = FanOutTally(topics: 2)
        #expect(tally.jobFinished(topic: 0, records: 1) == .pending)
        #expect(tally.acknowledged(Chunk(topic: 0, sequence: 0, partition: 0), accepted: 4) == .pending)
        #expect(tally.jobFinished(topic: 1, records: 0) == .complete(count: 4))
    }

    @Test("a repeated acknowledgement or walk end changes nothing")
    func repeats() {
        var tally = FanOutTally(topics: 1)
        let chunk = Chunk(topic: 0, sequence: 0, partition: 0)
        #expect(tally.acknowledged(chunk, accepted: 2) == .pending)
        #expect(tally.acknowledged(chunk, accepted: 2) == .pending)
        #expect(tally.jobFinished(topic: 0, records: 2) == .pending)
        #expect(tally.jobFinished(topic: 0, records: 1) == .pending, "a repeated end with another count is ignored")
        #expect(tally.acknowledged(Chunk(topic: 0, sequence: 1, partition: 0), accepted: 1) == .complete(count: 3))
        #expect(tally.acknowledged(chunk, accepted: 2) == .done && tally.count == 3)
    }

    @Test("any order of the messages, with repeats, completes once, at the last new one, with the exact count")
    func anyOrder() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...1_000_000), Gen.int(in: 1...5)) { seed, topics in
            var generator = SplitMix(state: UInt64(seed))
            // Each topic sends 0 to 4 records, each taking 0 to 3 copies.
            var messages: [(isEnd: Bool, topic: Int, sequence: Int, accepted: Int)] = []
            var expected = 0
            for topic in 0..<topics {
                let records = Int(generator.next() % 5)
                messages.append((true, topic, records, 0))
                for sequence in 0..<records {
                    let accepted = Int(generator.next() % 4)
                    expected += accepted
                    messages.append((false, topic, sequence, accepted))
                }
            }
            let repeats = messages.filter { _ in generator.next() % 3 == 0 }
            var order = messages + repeats
            for index in order.indices.reversed() {
                order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
            }
            var tally = FanOutTally(topics: topics)
            var completions: [Int] = []
            for (position, message) in order.enumerated() {
                let outcome =
                    message.isEnd
                    ? tally.jobFinished(topic: message.topic, records: message.sequence)
                    : tally.acknowledged(
                        Chunk(topic: message.topic, sequence: message.sequence, partition: 0),
                        accepted: message.accepted)
                if case .complete(let count) = outcome {
                    completions.append(position)
                    #expect(count == expected)
                }
            }
            #expect(completions.count == 1)
            // It completes at the first position where every distinct message has been seen.
            var seen: Set<String> = []
            var lastNew = 0
            for (position, message) in order.enumerated()
            where seen.insert("\(message.isEnd) \(message.topic) \(message.sequence)").inserted {
                lastNew = position
            }
            #expect(completions == [lastNew])
        }
    }
}

/// A small seeded generator, so that a failing case replays.
private struct SplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
