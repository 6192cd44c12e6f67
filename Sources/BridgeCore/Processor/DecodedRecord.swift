import FCMTranslation

/// An input record decoded, before it touches any state: what ``RecordProcessor/decode(_:)``
/// makes of it, and what the processor applies. Decoding reads no state, so that a batch may be
/// decoded whole first and the devices it names read from a store before it is processed
/// (``RecordProcessor/devices(namedBy:)``).
public struct DecodedRecord<Record: InputRecord> {
    /// The record, for its position, key and bytes (a dead letter carries them).
    public let record: Record
    let content: DecodedContent
}

extension DecodedRecord: Sendable where Record: Sendable {}

/// What an input record holds, decoded by its topic.
enum DecodedContent {
    /// A repartition record's input, or why it does not decode.
    case repartition(Result<RepartitionCodec.Carried, MalformedRecord>)
    /// A send record, admitted: decoded and translated for each of its tokens.
    case send(SendIntake.Result)
    case presence(Result<PresenceEvent, Rejection>)
    case subscriptions(Result<SubscriptionRequest, Rejection>)
    /// A record of a topic the processor does not read.
    case unexpected
}
