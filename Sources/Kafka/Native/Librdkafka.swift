import CRDKafka

/// The librdkafka library this process loaded at run time.
public enum Librdkafka {
    /// The oldest librdkafka this layer works with: 2.2.0 fixed a tag-skipping bug in
    /// flexible-version responses that older versions trip over on some brokers, and 2.3.0 added
    /// the DescribeTopics admin call, whose topic ids tell a changelog created again.
    public static let minimumVersion = "2.3.0"

    /// The loaded library's version, as `rd_kafka_version_str()` reports it.
    public static var version: String { String(cString: rd_kafka_version_str()) }

    /// Throws unless the loaded library is at least ``minimumVersion``. A binary built against a
    /// newer librdkafka can still load an older system copy at run time, so check at start-up.
    public static func requireMinimumVersion() throws {
        // rd_kafka_version() is 0xMMmmrrxx: major, minor, revision, pre-release.
        guard rd_kafka_version() >= 0x0203_0000 else {
            throw KafkaError.invalidArgument(
                "librdkafka \(version) is loaded, but \(minimumVersion) or newer is required;"
                    + " set LD_LIBRARY_PATH or an rpath to a newer librdkafka"
            )
        }
    }
}
