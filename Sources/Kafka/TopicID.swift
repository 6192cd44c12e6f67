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

    /// The two halves in hexadecimal, 16 digits each, joined by `-`.
    public var description: String {
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "\(hex(high))-\(hex(low))"
    }
}
