/// A presence record's value (the contract's "Input: presence").
struct PresenceRecord: Encodable {
    var token: String
    var event: String
    var messageIDs: [String]?

    private enum CodingKeys: String, CodingKey {
        case token, event
        case messageIDs = "message_ids"
    }
}
