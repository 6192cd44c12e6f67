import Kafka
import Testing

/// A topic id is written as its two halves in 16 hex digits each: what a store keeps to tell one
/// incarnation of the changelog from the next.
@Suite("Topic ids")
struct TopicIDTests {
    @Test(
        "an id is written as two halves of 16 hex digits, zeros kept",
        arguments: [
            (TopicID(high: 0, low: 1), "0000000000000000-0000000000000001"),
            (TopicID(high: 0x01a2_1a7e_158f_7d41, low: 0x849a_99c2_cbb2_0052), "01a21a7e158f7d41-849a99c2cbb20052"),
            (TopicID(high: .max, low: .max), "ffffffffffffffff-ffffffffffffffff"),
        ])
    func written(id: TopicID, text: String) {
        #expect(id.description == text)
    }
}
