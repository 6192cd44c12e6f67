import FCMTranslation
import PropertyBased
import Testing

@testable import BridgeCore

/// The coordinator's count of a fan-out: complete once every walk has ended and each channel's
/// last chunk is acknowledged, whatever the interleaving, with repeats counted once.
@Suite("Fan-out tally")
struct FanOutTallyTests {
    typealias Channel = FanOutTally.Channel

    static func tally(topics: Int) -> FanOutTally {
        let text = (0..<topics).map { "'t\($0)' in topics" }.joined(separator: " || ")
        let target = topics == 1 ? TopicTarget.parse("t0", as: .topic) : TopicTarget.parse(text, as: .condition)
        return FanOutTally(message: FanOutStatusSubject(sendID: "0:1:0", target: try! target.get(), time: 5))
    }

    static let p0 = Channel(segment: 0, partition: 0)
    static let p1 = Channel(segment: 0, partition: 1)

    @Test("a topic with no subscribers completes with count 0 as soon as its walk ends")
    func noSubscribers() {
        var tally = Self.tally(topics: 1)
        #expect(!tally.isComplete)
        let ended = tally.walkEnded(topic: 0, lastChunks: [:])
        #expect(ended)
        #expect(tally.isComplete && tally.count == 0)
    }

    @Test("acknowledgements before the walk ends wait for it; the count is their sum")
    func acknowledgementsFirst() {
        var tally = Self.tally(topics: 1)
        let first = tally.acknowledged(topic: 0, channel: Self.p1, chunk: 0, accepted: 3)
        #expect(first == .init(lastChunk: 0, accepted: 3))
        #expect(tally.count == 3)
        _ = tally.acknowledged(topic: 0, channel: Self.p0, chunk: 1, accepted: 2)
        #expect(!tally.isComplete)
        let ended = tally.walkEnded(topic: 0, lastChunks: [Self.p0: 1, Self.p1: 2])
        #expect(ended && !tally.isComplete)
        let last = tally.acknowledged(topic: 0, channel: Self.p1, chunk: 2, accepted: 0)
        #expect(last == .init(lastChunk: 2, accepted: 3))
        #expect(tally.isComplete && tally.count == 5)
    }

    @Test("every topic's walk must end, even when the acknowledged records add up")
    func everyTopic() {
        var tally = Self.tally(topics: 2)
        let first = tally.walkEnded(topic: 0, lastChunks: [Self.p0: 0])
        #expect(first)
        _ = tally.acknowledged(topic: 0, channel: Self.p0, chunk: 0, accepted: 4)
        #expect(!tally.isComplete)
        let second = tally.walkEnded(topic: 1, lastChunks: [:])
        #expect(second)
        #expect(tally.isComplete && tally.count == 4)
    }

    @Test("a repeated acknowledgement or walk end changes nothing; out-of-range ones are ignored")
    func repeats() {
        var tally = Self.tally(topics: 1)
        let acknowledged = tally.acknowledged(topic: 0, channel: Self.p0, chunk: 0, accepted: 2)
        #expect(acknowledged != nil)
        let again = tally.acknowledged(topic: 0, channel: Self.p0, chunk: 0, accepted: 2)
        #expect(again == nil)
        let ended = tally.walkEnded(topic: 0, lastChunks: [Self.p0: 1])
        #expect(ended)
        let endedAgain = tally.walkEnded(topic: 0, lastChunks: [Self.p0: 0])
        #expect(!endedAgain, "a repeated end with another count")
        let noTopic = tally.walkEnded(topic: 3, lastChunks: [:])
        #expect(!noTopic)
        let noChannel = tally.acknowledged(topic: 2, channel: Self.p0, chunk: 1, accepted: 9)
        #expect(noChannel == nil)
        #expect(!tally.isComplete && tally.count == 2)
        _ = tally.acknowledged(topic: 0, channel: Self.p0, chunk: 1, accepted: 1)
        #expect(tally.isComplete && tally.count == 3)
    }

    @Test("any interleaving of in-order channels, each replaying what it sent, completes with the exact count")
    func anyInterleaving() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000_000), Gen.int(in: 1...5)) { seed, topics in
            var generator = SplitMix(state: UInt64(seed))
            // Per (topic, segment, partition) channel: 0 to 4 chunks of rising numbers with gaps, each
            // taking 0 to 3 copies, delivered in order, sometimes replaying from an earlier one (a
            // step or a device owner that processed its input again).
            var channels: [[(topic: Int, channel: Channel, chunk: Int, accepted: Int)]] = []
            var lastChunks = Array(repeating: [Channel: Int](), count: topics)
            var expected = 0
            for topic in 0..<topics {
                for segment in 0..<Int(generator.next() % 3 + 1) {
                    for partition in Int32(0)..<Int32(generator.next() % 3 + 1) {
                        let channel = Channel(segment: segment, partition: partition)
                        var chunks: [(Int, Int)] = []
                        var number = 0
                        for _ in 0..<Int(generator.next() % 5) {
                            number += Int(generator.next() % 3)
                            chunks.append((number, Int(generator.next() % 4)))
                            number += 1
                        }
                        guard let last = chunks.last else { continue }
                        lastChunks[topic][channel] = last.0
                        expected += chunks.reduce(0) { $0 + $1.1 }
                        var delivered: [(Int, Channel, Int, Int)] = []
                        var next = 0
                        while next < chunks.count {
                            delivered.append((topic, channel, chunks[next].0, chunks[next].1))
                            next = generator.next() % 4 == 0 ? Int(generator.next() % UInt64(next + 1)) : next + 1
                        }
                        channels.append(delivered)
                    }
                }
            }
            var tally = Self.tally(topics: topics)
            var ends = Array(0..<topics)
            while !channels.allSatisfy(\.isEmpty) || !ends.isEmpty {
                // Incomplete while a walk has not ended, and never over the count.
                #expect(ends.isEmpty || !tally.isComplete)
                #expect(tally.count <= expected)
                let pick = Int(generator.next() % UInt64(channels.count + 1))
                if pick == channels.count || channels.allSatisfy(\.isEmpty) {
                    guard !ends.isEmpty else { continue }
                    let topic = ends.remove(at: Int(generator.next() % UInt64(ends.count)))
                    let ended = tally.walkEnded(topic: topic, lastChunks: lastChunks[topic])
                    #expect(ended)
                } else if !channels[pick].isEmpty {
                    let (topic, channel, chunk, accepted) = channels[pick].removeFirst()
                    _ = tally.acknowledged(topic: topic, channel: channel, chunk: chunk, accepted: accepted)
                }
            }
            #expect(tally.isComplete)
            #expect(tally.count == expected)
        }
    }
}

/// The tally as the processor keeps it: each change its steps return is applied.
extension FanOutTally {
    /// ``walkEnd(topic:lastChunks:)``, applied; whether it was news.
    fileprivate mutating func walkEnded(topic: Int, lastChunks: [Channel: Int]) -> Bool {
        guard let change = walkEnd(topic: topic, lastChunks: lastChunks) else { return false }
        apply(change)
        return true
    }

    /// ``acknowledgement(topic:channel:chunk:accepted:)``, applied; the channel's progress, or
    /// nil for a repeat.
    fileprivate mutating func acknowledged(topic: Int, channel: Channel, chunk: Int, accepted: Int) -> Progress? {
        guard let change = acknowledgement(topic: topic, channel: channel, chunk: chunk, accepted: accepted),
            case .tallyProgress(_, _, let progress) = change
        else { return nil }
        apply(change)
        return progress
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
