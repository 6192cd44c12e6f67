import FCMTranslation
import PropertyBased
import Testing

@testable import BridgeCore

/// The coordinator's count of a fan-out: complete once every walk has ended and every record
/// it sent is acknowledged, whatever the interleaving, with repeats counted once.
@Suite("Fan-out tally")
struct FanOutTallyTests {
    static func tally(topics: [String], partitions: Int) -> FanOutTally {
        let text = topics.map { "'\($0)' in topics" }.joined(separator: " || ")
        let target =
            topics.count == 1
            ? try! TopicTarget.parse(topics[0], as: .topic).get()
            : try! TopicTarget.parse(text, as: .condition).get()
        return FanOutTally(
            message: FanOutStatusSubject(sendID: "0:1:0", target: target, time: 5), partitions: partitions)
    }

    @Test("a topic with no subscribers completes with count 0 as soon as its walk ends")
    func noSubscribers() {
        var tally = Self.tally(topics: ["a"], partitions: 2)
        #expect(!tally.isComplete)
        tally.walkEnded(topic: 0, records: [0, 0])
        #expect(tally.isComplete && tally.count == 0)
    }

    @Test("acknowledgements before the walk ends wait for it; the count is their sum")
    func acknowledgementsFirst() {
        var tally = Self.tally(topics: ["a"], partitions: 3)
        tally.acknowledged(topic: 0, partition: 1, sequence: 0, accepted: 3)
        tally.acknowledged(topic: 0, partition: 2, sequence: 0, accepted: 2)
        #expect(!tally.isComplete)
        tally.walkEnded(topic: 0, records: [0, 2, 1])
        #expect(!tally.isComplete)
        tally.acknowledged(topic: 0, partition: 1, sequence: 1, accepted: 0)
        #expect(tally.isComplete && tally.count == 5)
    }

    @Test("every topic's walk must end, even when the acknowledged records add up")
    func everyTopic() {
        var tally = Self.tally(topics: ["a", "b"], partitions: 1)
        tally.walkEnded(topic: 0, records: [1])
        tally.acknowledged(topic: 0, partition: 0, sequence: 0, accepted: 4)
        #expect(!tally.isComplete)
        tally.walkEnded(topic: 1, records: [0])
        #expect(tally.isComplete && tally.count == 4)
    }

    @Test("a repeated acknowledgement or walk end changes nothing; out-of-range ones are ignored")
    func repeats() {
        var tally = Self.tally(topics: ["a"], partitions: 1)
        tally.acknowledged(topic: 0, partition: 0, sequence: 0, accepted: 2)
        tally.acknowledged(topic: 0, partition: 0, sequence: 0, accepted: 2)
        tally.walkEnded(topic: 0, records: [2])
        tally.walkEnded(topic: 0, records: [1])  // a repeated end with another count
        tally.walkEnded(topic: 3, records: [0])
        tally.acknowledged(topic: 0, partition: 7, sequence: 1, accepted: 9)
        tally.acknowledged(topic: 2, partition: 0, sequence: 1, accepted: 9)
        #expect(!tally.isComplete && tally.count == 2)
        tally.acknowledged(topic: 0, partition: 0, sequence: 1, accepted: 1)
        #expect(tally.isComplete && tally.count == 3)
    }

    @Test("a walk end of the wrong width is ignored")
    func wrongWidth() {
        var tally = Self.tally(topics: ["a"], partitions: 2)
        tally.walkEnded(topic: 0, records: [0])
        #expect(!tally.isComplete)
    }

    @Test("any interleaving of in-order channels, each replaying prefixes, completes with the exact count")
    func anyInterleaving() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000_000), Gen.int(in: 1...5)) { seed, topics in
            var generator = SplitMix(state: UInt64(seed))
            let partitions = Int(generator.next() % 4) + 1
            // Per (topic, partition) channel: 0 to 4 records, each taking 0 to 3 copies, delivered in
            // order, sometimes replaying from an earlier record (a device owner that restarted).
            var channels: [[(topic: Int, partition: Int, sequence: Int, accepted: Int)]] = []
            var records = Array(repeating: Array(repeating: 0, count: partitions), count: topics)
            var expected = 0
            for topic in 0..<topics {
                for partition in 0..<partitions {
                    let count = Int(generator.next() % 5)
                    records[topic][partition] = count
                    let accepted = (0..<count).map { _ in Int(generator.next() % 4) }
                    expected += accepted.reduce(0, +)
                    var delivered: [(Int, Int, Int, Int)] = []
                    var next = 0
                    while next < count {
                        delivered.append((topic, partition, next, accepted[next]))
                        next = generator.next() % 4 == 0 ? Int(generator.next() % UInt64(next + 1)) : next + 1
                    }
                    channels.append(delivered)
                }
            }
            var tally = Self.tally(topics: (0..<topics).map { "t\($0)" }, partitions: partitions)
            var ends = Array(0..<topics)
            while !channels.allSatisfy(\.isEmpty) || !ends.isEmpty {
                // Incomplete while a walk has not ended, and never over the count.
                #expect(ends.isEmpty || !tally.isComplete)
                #expect(tally.count <= expected)
                let pick = Int(generator.next() % UInt64(channels.count + 1))
                if pick == channels.count || channels.allSatisfy(\.isEmpty) {
                    guard !ends.isEmpty else { continue }
                    let topic = ends.remove(at: Int(generator.next() % UInt64(ends.count)))
                    tally.walkEnded(topic: topic, records: records[topic])
                } else if !channels[pick].isEmpty {
                    let (topic, partition, sequence, accepted) = channels[pick].removeFirst()
                    tally.acknowledged(
                        topic: topic, partition: Int32(partition), sequence: sequence, accepted: accepted)
                }
            }
            #expect(tally.isComplete)
            #expect(tally.count == expected)
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
