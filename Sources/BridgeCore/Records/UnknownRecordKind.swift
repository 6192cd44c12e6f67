/// A changelog or repartition record of a kind this version does not know, which a newer version
/// wrote: skipping it would lose what it holds (a device's state, an input on its way), so the
/// worker stops, naming it, instead.
public struct UnknownRecordKind: Error, CustomStringConvertible {
    /// What the codec said of the record: its place and kind.
    public var record: MalformedRecord

    /// The error for `record`, which a codec found of an unknown kind.
    public init(record: MalformedRecord) {
        self.record = record
    }

    /// The record's place and kind, and what the operator does about it.
    public var description: String {
        "\(record.description): it was written by a newer fcm-bridge; run that version (finish the upgrade) or roll the fleet back together"
    }
}
