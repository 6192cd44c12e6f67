/// Turns a ``SendRequest`` into the ``APNsMessage`` a device receives, by the contract's
/// translation table. Headers and payload are written straight from the request's bytes,
/// members sorted by name, so the same request always gives the same bytes.
public struct APNsTranslator: Sendable {
    /// The default APNs payload limit, in bytes.
    public static let defaultPayloadLimit = 4096

    /// `apns-topic` when the request's headers give none; no header when nil.
    public var bundleID: String? {
        didSet { topics = bundleID.map(APNsTopics.init) }
    }
    /// Payloads over this many bytes are rejected as `payload_too_large`.
    public var payloadLimit: Int
    /// The topics of ``bundleID``, as JSON strings.
    private var topics: APNsTopics?

    /// Creates a translator.
    public init(bundleID: String? = nil, payloadLimit: Int = APNsTranslator.defaultPayloadLimit) {
        self.bundleID = bundleID
        topics = bundleID.map(APNsTopics.init)
        self.payloadLimit = payloadLimit
    }

    /// Translates a request for one device.
    /// - Parameters:
    ///   - messageID: the message's id, sent as `gcm.message_id`.
    ///   - sentAt: the send time in milliseconds since the epoch, for `apns-expiration`.
    public func translate(_ request: SendRequest, messageID: String, sentAt: Int64) -> Result<APNsMessage, Rejection> {
        // Written in stack memory, so the array is the only allocation. Not through
        // `ByteWriter.withWritten`, which measured about 220 instructions more per translation here.
        withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { scratch in
            var output = ByteWriter(scratch: scratch)
            switch translate(request, messageID: messageID, sentAt: sentAt, into: &output) {
            case .success(let summary):
                let bytes = output.withUnsafeBytes { [UInt8]($0) }
                return .success(
                    APNsMessage(
                        jsonBytes: bytes, payloadRange: summary.payloadRange, collapseID: summary.collapseID,
                        expiration: summary.expiration))
            case .failure(let rejection):
                return .failure(rejection)
            }
        }
    }

    /// Writes `{"headers": {...}, "payload": {...}}` for one device into `output`, after what it
    /// holds; on a rejection what was written is of no use. A message for the app's direct
    /// channel (``PushKind/direct``, and no push type in the request's headers) starts with
    /// `"channel": "direct"`; a Live Activity update carries its `live_activity_token`.
    public func translate(
        _ request: SendRequest, messageID: String, sentAt: Int64, into output: inout ByteWriter
    ) -> Result<TranslationSummary, Rejection> {
        let writer = PayloadWriter(request: request, messageID: messageID)
        let kind = writer.pushKind
        let headers = HeaderWriter(request: request, topic: topics?.topic(for: kind), kind: kind, sentAt: sentAt)
        output.append(kind == .direct && !headers.givesPushType ? #"{"channel":"direct","headers":"# : #"{"headers":"#)
        headers.write(to: &output)
        if let token = request.liveActivityToken {
            output.append(#","live_activity_token":"#)
            request.document.write(token, to: &output)
        }
        output.append(#","payload":"#)
        let payloadStart = output.count
        let messageIDRange = writer.write(to: &output)
        let payloadSize = output.count - payloadStart
        guard payloadSize <= payloadLimit else {
            return .failure(
                Rejection(.payloadTooLarge, "APNs payload is \(payloadSize) bytes, over the \(payloadLimit)-byte limit")
            )
        }
        let payloadRange = payloadStart..<output.count
        output.append(UInt8(ascii: "}"))
        return .success(
            TranslationSummary(
                payloadRange: payloadRange, messageIDRange: messageIDRange, collapseID: headers.collapseID,
                expiration: headers.expiration))
    }
}

/// What a translation tells besides its bytes.
public struct TranslationSummary: Sendable, Hashable {
    /// Where the payload was written.
    public var payloadRange: Range<Int>
    /// Where the message id was written, inside its quotes (nil when the request's own
    /// `apns.payload` gave `gcm.message_id`).
    public var messageIDRange: Range<Int>?
    /// The `apns-collapse-id` header, the message's collapse key.
    public var collapseID: String?
    /// The `apns-expiration` header: a UNIX time in seconds, or `0` for now or never.
    public var expiration: Int64?
}
