import Kafka
import Testing

/// A topic id is written as Kafka writes it, which is what a store keeps to tell one incarnation
/// of the changelog from the next, and what an operator compares with `kafka-topics.sh`.
@Suite("Topic ids")
struct TopicIDTests {
    @Test(
        "an id is its 16 bytes, most significant first, in URL-safe base64 without padding (vectors from Python's base64)",
        arguments: [
            (TopicID(high: 0, low: 1), "AAAAAAAAAAAAAAAAAAAAAQ"),
            (TopicID(high: 0x01a2_1a7e_197b_7d50, low: 0xa2d3_ecbe_e182_a884), "AaIafhl7fVCi0-y-4YKohA"),
            (TopicID(high: .max, low: .max), "_____________________w"),
        ])
    func written(id: TopicID, text: String) {
        #expect(id.description == text)
    }
}
