import FCMTranslation

/// Message ids: unique per (send record, token) and stable, because they are made of the send
/// record's position and the token's index in it. Processing the same record again, after a
/// crash or a rebalance, gives the same ids. A device's copy of a topic or condition send has
/// the send's id, `/`, and a hash of the device's token in 16 hex digits: stable, and unique
/// per (send, device) as far as 64 bits of hash tell devices apart.
public enum MessageID {
    /// The longest id of a send: a partition, an offset and a token index in decimal, and two colons.
    static let maximumSendBytes = 37
    /// The hex digits of a device's part of a copy's id.
    static let deviceHashDigits = 16
    /// No id made here is longer: a copy's.
    static let maximumBytes = maximumSendBytes + 1 + deviceHashDigits

    /// Whether `text` could be an id made here (`<digits>:<digits>:<digits>`, optionally
    /// followed by `/` and 16 lowercase hex digits): anything else in an `ack` is nobody's.
    static func isWellFormed(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= maximumBytes else { return false }
        let halves = utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard halves.count <= 2, let send = halves.first, send.count <= maximumSendBytes else { return false }
        if halves.count == 2 {
            let device = halves[1]
            guard device.count == deviceHashDigits, device.allSatisfy(isLowercaseHex) else { return false }
        }
        let parts = send.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        return parts.count == 3
            && parts.allSatisfy {
                !$0.isEmpty && $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            }
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
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

    /// The id of `token`'s copy of the topic or condition send `sendID`.
    public static func copy(of sendID: String, for token: String) -> String {
        sendID + "/" + deviceHash(token)
    }

    /// What a send's translation carries where each copy's id goes: as long as any copy's id,
    /// so that the payload's size is checked for the longest.
    static func copyPlaceholder(of sendID: String) -> String {
        sendID + "/" + String(repeating: "0", count: deviceHashDigits)
    }

    /// 64-bit FNV-1a of the token's bytes, in 16 lowercase hex digits.
    static func deviceHash(_ token: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: deviceHashDigits - digits.count) + digits
    }
}
