import Kafka
import Testing

@Suite("librdkafka statistics")
struct StatisticsTests {
    static func partition(_ fields: String) throws -> KafkaStatistics.Partition {
        let json =
            #"{"name":"c","type":"consumer","msg_cnt":0,"replyq":0,"brokers":{},"topics":{"t":{"topic":"t","partitions":{"0":{"partition":0,\#(fields)}}}}}"#
        let statistics = try Array(json.utf8).withUnsafeBytes { try KafkaStatistics.decode($0) }
        return try #require(statistics.topics["t"]?.partitions["0"])
    }

    @Test(
        "the reading lag counts from what was read to the last stable offset (else the high watermark), not from the committed offset",
        arguments: [
            // A consumer whose offsets are committed in transactions: librdkafka's lag is from a stale commit.
            (
                #""app_offset":90,"committed_offset":10,"hi_offset":100,"ls_offset":95,"consumer_lag":85"#,
                Int64?.some(5)
            ),
            (#""app_offset":90,"hi_offset":100,"ls_offset":-1,"consumer_lag":-1"#, 10),
            (#""app_offset":100,"hi_offset":100,"ls_offset":100"#, 0),
            // Read past a stale end: never negative.
            (#""app_offset":120,"hi_offset":100,"ls_offset":100"#, 0),
            (#""app_offset":-1,"hi_offset":100,"ls_offset":100,"consumer_lag":40"#, nil),
            (#""app_offset":5,"hi_offset":-1,"ls_offset":-1"#, nil),
            (#""consumer_lag":3"#, nil),
        ])
    func readingLag(fields: String, lag: Int64?) throws {
        #expect(try Self.partition(fields).readingLag == lag)
    }
}
