import DeviceQueues
import FCMTranslation

/// A topic or condition send, translated once for all of its devices: the `apns` object every
/// copy shares, with the send's ``MessageID/copyPlaceholder(of:)`` where each copy's own id goes.
public struct FanOutMessage: Sendable, Hashable {
    /// The send's own id (its `fanned_out`'s `message_id`).
    public var sendID: String
    /// Whose devices get a copy.
    public var target: TopicTarget
    /// The collapse key every copy has.
    public var collapseKey: String?
    /// When every copy expires, in milliseconds; nil for the rules' default time to live.
    public var expiresAt: Int64?
    /// The send's event time.
    public var time: Int64
    /// The `apns` object, with the placeholder id at ``idRange``.
    public var apns: [UInt8]
    /// Where the placeholder id is in ``apns`` (nil when the request's own `apns.payload` gave
    /// `gcm.message_id`, which every copy then carries as it is).
    public var idRange: Range<Int>?

    /// `token`'s copy, under its own id (``MessageID/copy(of:for:)``).
    public func copy(for token: String) -> QueuedMessage {
        let id = MessageID.copy(of: sendID, for: token)
        return apns.withUnsafeBytes { template in
            guard let idRange, idRange.lowerBound >= 0, idRange.upperBound <= template.count,
                idRange.count == id.utf8.count
            else {
                return QueuedMessage(
                    id: id, collapseKey: collapseKey, sentAt: time, expiresAt: expiresAt, apns: template)
            }
            return withUnsafeTemporaryAllocation(byteCount: template.count, alignment: 1) { copy in
                copy.copyMemory(from: template)
                var id = id
                id.withUTF8 { UnsafeMutableRawBufferPointer(rebasing: copy[idRange]).copyMemory(from: .init($0)) }
                return QueuedMessage(
                    id: id, collapseKey: collapseKey, sentAt: time, expiresAt: expiresAt, apns: .init(copy))
            }
        }
    }
}
