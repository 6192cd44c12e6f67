import FCMTranslation

/// Message ids: unique per (send record, token) and stable, because they are made of the send
/// record's position and the token's index in it. Processing the same record again, after a
/// crash or a rebalance, gives the same ids.
enum MessageID {
    /// No id made here is longer: a partition, an offset and a token index in decimal, and two colons.
    static let maximumBytes = 37

    /// Whether `text` could be an id made here (`<digits>:<digits>:<digits>`, at most
    /// ``maximumBytes``): anything else in an `ack` is nobody's.
    static func isWellFormed(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= maximumBytes else { return false }
        let parts = utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        return parts.count == 3
            && parts.allSatisfy {
                !$0.isEmpty && $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            }
    }

    /// `<partition>:<offset>:<token index>` of the send record, e.g. `3:1207:0`. Written into
    /// stack memory: string interpolation cost several allocations per id.
    static func make(partition: Int32, offset: Int64, tokenIndex: Int) -> String {
        ByteWriter.string { output in
            JSONOutput.writeInteger(Int64(partition), to: &output)
            output.append(UInt8(ascii: ":"))
            JSONOutput.writeInteger(offset, to: &output)
            output.append(UInt8(ascii: ":"))
            JSONOutput.writeInteger(Int64(tokenIndex), to: &output)
        }
    }
}
