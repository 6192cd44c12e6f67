/// Message ids: unique per (send record, token) and stable, because they are made of the send
/// record's position and the token's index in it. Processing the same record again, after a
/// crash or a rebalance, gives the same ids.
enum MessageID {
    /// No id made here is longer (11 + 20 + 4 digits and two colons): a longer one in an `ack`
    /// is nobody's.
    static let maximumBytes = 64

    /// `<partition>:<offset>:<token index>` of the send record, e.g. `3:1207:0`.
    static func make(partition: Int32, offset: Int64, tokenIndex: Int) -> String {
        "\(partition):\(offset):\(tokenIndex)"
    }
}
