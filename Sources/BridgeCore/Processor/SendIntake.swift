import DeviceQueues
import FCMTranslation
import NIOCore

/// The first step for a send record: decode, translate for each token, and decide. Accepted
/// messages go on to their device's queue; the rest get their status here. Pure: no Kafka.
public struct SendIntake: Sendable {
    /// What became of one send record.
    public struct Result: Sendable, Hashable {
        /// Messages for device queues, one per accepted token.
        public internal(set) var accepted: [RoutedInput] = []
        /// `rejected` and `validated` statuses, keyed by token (nil when none could be read).
        var statuses: [AddressedStatus] = []
        /// Why the record goes to the dead letter topic, when it could not be decoded.
        var deadLetter: Rejection?
        /// The topic or condition send to fan out, translated once for every copy.
        var fanOut: FanOutMessage? {
            get { fanOutBox?.value }
            set { fanOutBox = newValue.map(Box.init) }
        }
        /// ``fanOut`` on the heap: a send to devices, nearly every one, moves a word for it.
        private var fanOutBox: Box<FanOutMessage>?

        /// The first of the `rejected` statuses' rejections.
        var firstRejection: Rejection? {
            for case .rejected(_, let rejection, _) in statuses.lazy.map(\.status) { return rejection }
            return nil
        }
    }

    let translator: APNsTranslator
    /// The largest inbox record a message may make (its APNs headers and payload as translated).
    let maxInboxRecordBytes: Int

    /// Creates an intake that translates with `translator` into inbox records that fit `limits`.
    public init(translator: APNsTranslator, limits: OutputLimits = .librdkafkaDefault) {
        self.translator = translator
        self.maxInboxRecordBytes = limits.maxInboxRecordBytes
    }

    /// Handles the send record at `partition`/`offset` with CreateTime `time`.
    public func admit(_ value: [UInt8]?, partition: Int32, offset: Int64, time: Int64) -> Result {
        admit(
            value.map(RequestDecoder.decode) ?? .failure(.recordWithoutValue), partition: partition, offset: offset,
            time: time)
    }

    /// Handles the send record at `partition`/`offset` with CreateTime `time` (nil when it has
    /// none), reading its value in place.
    func admit(buffer value: ByteBuffer?, partition: Int32, offset: Int64, time: Int64?) -> Result {
        let decoded = value.map { $0.withUnsafeReadableBytes(RequestDecoder.decode) } ?? .failure(.recordWithoutValue)
        return admit(decoded, partition: partition, offset: offset, time: time)
    }

    func admit(_ decoded: Swift.Result<SendRequest, Rejection>, partition: Int32, offset: Int64, time: Int64?)
        -> Result
    {
        var result = Result()
        let request: SendRequest
        switch decoded {
        case .success(let decoded):
            request = decoded
        case .failure(let rejection):
            reject(rejection, partition: partition, offset: offset, time: EventTime.reported(time), into: &result)
            result.deadLetter = rejection.isUndecodable ? rejection : nil
            return result
        }
        guard let time = EventTime.valid(time) else {
            var rejection = EventTime.rejection(time, tokens: Array(request.tokens))
            rejection.topicTarget = request.topicTarget
            reject(rejection, partition: partition, offset: offset, time: EventTime.reported(time), into: &result)
            return result
        }
        // No tokens: a topic or condition target (checked so, the cheaper test for a send to devices).
        if request.tokens.isEmpty, let target = request.topicTarget {
            return admit(
                request, to: target, id: MessageID.make(partition: partition, offset: offset, tokenIndex: 0),
                time: time)
        }
        for (index, token) in request.tokens.enumerated() {
            let id = MessageID.make(partition: partition, offset: offset, tokenIndex: index)
            switch queued(request, id: id, tokenBytes: token.utf8.count, time: time) {
            case .success where request.validateOnly:
                result.statuses.append(AddressedStatus(token: token, status: .validated(messageID: id, at: time)))
            case .success(let (message, _)):
                result.accepted.append(RoutedInput(token: token, input: .send(message), time: time))
            case .failure(let rejection):
                result.statuses.append(
                    AddressedStatus(token: token, status: .rejected(messageID: id, rejection, at: time)))
            }
        }
        return result
    }

    /// A topic or condition send: translated once, with room for the longest copy's id and
    /// token, and for the fan-out's records that carry it with the target and the walk's state;
    /// its `validated` or `rejected` status is keyed by its first topic.
    private func admit(
        _ request: SendRequest, to target: TopicTarget, id: String, time: Int64
    ) -> Result {
        var result = Result()
        let room = RequestDecoder.maximumTokenBytes + target.text.utf8.count + FanOutWalk.stateBytes
        let translated = queued(request, id: MessageID.copyPlaceholder(of: id), tokenBytes: room, time: time)
        switch translated {
        case .success where request.validateOnly:
            result.statuses.append(
                AddressedStatus(token: nil, status: .validated(messageID: id, at: time), target: target))
        case .success(let (message, idRange)):
            result.fanOut = FanOutMessage(
                sendID: id, target: target, collapseKey: message.collapseKey, expiresAt: message.expiresAt, time: time,
                apns: message.withAPNs { Array($0) }, idRange: idRange)
        case .failure(let rejection):
            result.statuses.append(
                AddressedStatus(token: nil, status: .rejected(messageID: id, rejection, at: time), target: target))
        }
        return result
    }

    private func reject(_ rejection: Rejection, partition: Int32, offset: Int64, time: Int64, into result: inout Result)
    {
        guard !rejection.tokens.isEmpty else {
            // A topic or condition send's rejection is keyed by its topic and names its target.
            let id = rejection.topicTarget.map { _ in
                MessageID.make(partition: partition, offset: offset, tokenIndex: 0)
            }
            result.statuses.append(
                AddressedStatus(
                    token: nil, status: .rejected(messageID: id, rejection, at: time), target: rejection.topicTarget))
            return
        }
        for (index, token) in rejection.tokens.enumerated() {
            let id = MessageID.make(partition: partition, offset: offset, tokenIndex: index)
            result.statuses.append(AddressedStatus(token: token, status: .rejected(messageID: id, rejection, at: time)))
        }
    }

    /// The message translated for one device, ready for its queue: the `apns` object of its
    /// inbox record, and the collapse key and expiry from the APNs headers (which already merged
    /// the request's own `apns-collapse-id` and `apns-expiration`); and where its id is in the
    /// `apns` object. `tokenBytes` is the device token's length, which its inbox record holds.
    private func queued(_ request: SendRequest, id: String, tokenBytes: Int, time: Int64)
        -> Swift.Result<(QueuedMessage, idRange: Range<Int>?), Rejection>
    {
        ByteWriter.withWritten { output in
            translator.translate(request, messageID: id, sentAt: time, into: &output)
        } read: { translated, apns in
            translated.flatMap { summary -> Swift.Result<(QueuedMessage, idRange: Range<Int>?), Rejection> in
                // The payload is within its limit; APNs headers passed through from the request are not.
                let recordBytes = InboxEncoding.messageBytes(
                    apnsBytes: apns.count, messageID: id, sentAt: time, tokenBytes: tokenBytes)
                guard recordBytes <= maxInboxRecordBytes else {
                    return .failure(
                        Rejection(
                            .invalidArgument,
                            "message.apns.headers: the message with its headers takes \(recordBytes) bytes, over the \(maxInboxRecordBytes) an output record holds"
                        ))
                }
                let message = QueuedMessage(
                    id: id, collapseKey: summary.collapseID, sentAt: time, expiresAt: expiry(summary, sentAt: time),
                    apns: apns)
                return .success((message, summary.messageIDRange))
            }
        }
    }

    /// When a message expires, in milliseconds, from its `apns-expiration` (nil when it has
    /// none). Saturates at the end of `Int64`, which only a send time in the year 292 million
    /// reaches: the decoder keeps a request's own header within range.
    private func expiry(_ summary: TranslationSummary, sentAt time: Int64) -> Int64? {
        guard let seconds = summary.expiration else { return nil }
        // 0: deliver now or never.
        if seconds == 0 { return time }
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? .max : milliseconds
    }
}
