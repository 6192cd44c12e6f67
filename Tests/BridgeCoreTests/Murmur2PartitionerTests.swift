import BridgeCore
import Testing

@Suite("murmur2 partitioner")
struct Murmur2PartitionerTests {
    /// Apache Kafka's `UtilsTest.testMurmur2` vectors: the Java client's signed 32-bit hashes.
    @Test(
        "matches the Java client's murmur2",
        arguments: [
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
            ("abc", 479_470_107),
            ("", 275_646_681),
        ] as [(String, Int32)])
    func javaVectors(key: String, hash: Int32) {
        #expect(Int32(bitPattern: Murmur2Partitioner.murmur2(Array(key.utf8))) == hash)
    }

    @Test("partitions by the positive hash: a negative hash is masked, not negated")
    func positiveHash() {
        // murmur2("foobar") is negative; Java's toPositive masks the sign bit.
        #expect(Murmur2Partitioner.partition(of: Array("foobar".utf8), partitions: 50) == 16)
        #expect(Murmur2Partitioner.partition(of: Array("21".utf8), partitions: 1) == 0)
    }
}
