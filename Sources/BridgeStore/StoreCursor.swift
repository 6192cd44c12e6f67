/// Where a read of a store in parts is: past the record of sequence ``sequence``, the
/// ``count``th.
public struct StoreCursor: Sendable {
    /// The sequence of the last record read; nil before the first.
    var sequence: Int64?
    /// Records read so far.
    public internal(set) var count = 0
    /// Whether the last part read ended the store.
    public internal(set) var isAtEnd = false

    /// Before the store's first record.
    public init() {}
}
