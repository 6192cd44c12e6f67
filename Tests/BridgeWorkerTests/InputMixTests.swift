import Kafka
import Testing

@testable import BridgeWorker

/// How much the next batch takes in during a commit, by the inputs of the two batches.
@Suite("Input mix")
struct InputMixTests {
    static func batch(_ topics: [String]) -> OpenBatch {
        var batch = OpenBatch()
        for (offset, topic) in topics.enumerated() {
            batch.take(
                ConsumerRecord(topicPartition: TopicPartition(topic, 0), offset: Int64(offset), key: nil, value: nil),
                at: .now)
        }
        return batch
    }

    @Test(
        "a batch's mix is the worker's own work (the state topic), outside inputs, or both",
        arguments: [
            ([String](), InputMix()), (["state"], .own), (["send", "presence"], .outside),
            (["send", "state", "subscriptions"], .both),
        ] as [([String], InputMix)])
    func mixOfABatch(topics: [String], expected: InputMix) {
        #expect(Self.batch(topics).inputMix(stateTopic: "state") == expected)
    }

    @Test(
        "the next batch takes a whole batch in during a commit, an eighth when fan-out work and outside inputs mix across the two",
        arguments: [
            (InputMix.own, InputMix.own, 1), (.outside, .outside, 1), (.own, .outside, 8), (.outside, .own, 8),
            (.both, [], 8), ([], .own, 1),
        ] as [(InputMix, InputMix, Int)])
    func share(committing: InputMix, open: InputMix, expected: Int) {
        #expect(InputMix.overlapShare(committing: committing, open: open) == expected)
    }
}
