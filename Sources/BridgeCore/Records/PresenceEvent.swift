import DeviceQueues
import FCMTranslation

/// A presence event (`fcm.presence`): the device connected, disconnected or acknowledged messages.
public struct PresenceEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The device is online from now on.
        case connect
        /// The device is offline from now on.
        case disconnect
        /// The device received these messages.
        case acknowledge(messageIDs: [String])
    }

    var token: String
    var kind: Kind

    /// The most ids one `ack` may name: a device's acknowledgement window.
    static let maximumAcknowledgedIDs = QueueRules().acknowledgementWindow

    /// Decodes `{"token": ..., "event": "connect" | "disconnect" | "ack", "message_ids": [...]}`.
    /// A rejection names the field; it is undecodable (a dead letter too) when the value is not
    /// a JSON object with a token.
    static func decode(_ bytes: (some Collection<UInt8>)?) -> Result<PresenceEvent, Rejection> {
        guard let bytes else { return .failure(.recordWithoutValue) }
        guard let json = try? JSONParser.parse(bytes), case .object(let members) = json else {
            return .failure(Rejection(.invalidArgument, "presence event is not a JSON object", isUndecodable: true))
        }
        guard let token = members["token"]?.stringValue, !token.isEmpty else {
            return .failure(Rejection(.invalidArgument, "token: a non-empty string is required", isUndecodable: true))
        }
        if let problem = RequestDecoder.tokenProblem(token) {
            // Decodable, but not to be a key or to be echoed: a target-less rejection.
            return .failure(Rejection(.invalidArgument, "token: \(problem)"))
        }
        var rejection = Rejection(.invalidArgument, "")
        rejection.tokens = [token]
        switch members["event"]?.stringValue {
        case "connect":
            return .success(PresenceEvent(token: token, kind: .connect))
        case "disconnect":
            return .success(PresenceEvent(token: token, kind: .disconnect))
        case "ack":
            guard case .array(let values)? = members["message_ids"] else {
                rejection.detail = "message_ids: an array of strings is required on ack"
                return .failure(rejection)
            }
            // Bounds what one ack makes (forwarded records, `delivered` statuses); a device
            // remembers no more dispatched ids than that anyway.
            guard values.count <= Self.maximumAcknowledgedIDs else {
                rejection.detail =
                    "message_ids: at most \(Self.maximumAcknowledgedIDs) ids per ack, got \(values.count)"
                return .failure(rejection)
            }
            var ids = values.compactMap(\.stringValue)
            guard ids.count == values.count else {
                rejection.detail = "message_ids: every id must be a string"
                return .failure(rejection)
            }
            // Unknown ids are ignored; one that is not shaped like an id made here is unknown for sure.
            ids.removeAll { !MessageID.isWellFormed($0) }
            return .success(PresenceEvent(token: token, kind: .acknowledge(messageIDs: ids)))
        default:
            rejection.detail = "event: must be \"connect\", \"disconnect\" or \"ack\""
            return .failure(rejection)
        }
    }
}

extension Rejection {
    /// An input record with a null value: nothing to decode, so a dead letter too.
    static let recordWithoutValue = Rejection(.invalidArgument, "the record has no value", isUndecodable: true)
}
