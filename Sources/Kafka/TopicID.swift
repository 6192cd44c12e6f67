import Foundation

/// A topic's id (KIP-516): the cluster's name for one incarnation of a topic. A topic deleted and
/// created again under its name gets a new id, which its offsets cannot tell.
public struct TopicID: Sendable, Hashable, CustomStringConvertible {
    /// The id's most significant 64 bits.
    public var high: UInt64
    /// Its least significant 64 bits.
    public var low: UInt64

    /// Creates an id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The id brokers without topic ids answer with.
    var isZero: Bool { high == 0 && low == 0 }

    /// The id as Kafka writes it (`kafka-topics.sh --describe`'s `TopicId`): its 16 bytes, most
    /// significant first, in URL-safe base64 without padding.
    public var description: String {
        let bytes = withUnsafeBytes(of: high.bigEndian) { Array($0) } + withUnsafeBytes(of: low.bigEndian) { Array($0) }
        return Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_")
            .replacing("=", with: "")
    }
}
