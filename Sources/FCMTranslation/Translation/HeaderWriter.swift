/// Writes the APNs headers of a translated request: the derived ones (`apns-push-type`,
/// `apns-priority`, `apns-collapse-id`, `apns-expiration`, `apns-topic`), with the v1
/// `apns.headers` passed through and winning, names in byte order. A ``PushKind/direct`` message
/// gets no derived push type. Not copyable, as ``PayloadWriter``.
struct HeaderWriter: ~Copyable {
    /// Where a header's value comes from (no `String`s, so that sorting copies plain bytes).
    enum Value {
        case literal(StaticString)
        /// The request's collapse key.
        case collapseKey
        /// The expiration derived from the request's TTL.
        case derivedExpiration
        /// The app's bundle ID, or its Live Activity topic.
        case topic
        /// A string of the request, written as it is.
        case node(JSONNodeIndex)
    }

    private let document: JSONDocument
    private var members = SortedMembers<Value>(capacity: 8)
    private let collapseKey: String?
    /// Seconds since the epoch.
    private let derivedExpiration: Int64?
    /// The translator's `apns-topic` for the message, as a JSON string.
    private let topic: [UInt8]?
    /// The `apns-collapse-id` that wins.
    private(set) var collapseID: String?
    /// The `apns-expiration` that wins, in seconds since the epoch.
    private(set) var expiration: Int64?
    /// Whether the request's headers give an `apns-push-type`.
    private(set) var givesPushType = false

    /// - Parameter topic: the translator's `apns-topic` for the message, as a JSON string.
    init(request: borrowing SendRequest, topic: [UInt8]?, kind: PushKind, sentAt: Int64) {
        document = request.document
        // Added in name order, so that without overrides the sort has nothing to move.
        collapseKey = request.collapseKey
        collapseID = request.collapseKey
        if request.collapseKey != nil { members.add(ByteSpan("apns-collapse-id"), .collapseKey) }
        // sentAt / 1000 is far from the limits, so adding a checked TTL cannot overflow.
        derivedExpiration = request.timeToLive.map { ttl in ttl == 0 ? 0 : sentAt / 1000 + Int64(ttl) }
        expiration = derivedExpiration
        if derivedExpiration != nil { members.add(ByteSpan("apns-expiration"), .derivedExpiration) }
        let priority: StaticString =
            switch (kind, request.priority) {
            case (.background, _), (_, .normal): "5"
            case (_, .high), (_, nil): "10"
            }
        members.add(ByteSpan("apns-priority"), .literal(priority))
        switch kind {
        case .alert: members.add(ByteSpan("apns-push-type"), .literal("alert"))
        case .background: members.add(ByteSpan("apns-push-type"), .literal("background"))
        case .liveActivity: members.add(ByteSpan("apns-push-type"), .literal("liveactivity"))
        case .direct: break
        }
        self.topic = topic
        if topic != nil { members.add(ByteSpan("apns-topic"), .topic) }
        if let overrides = request.apnsHeaders {
            for (name, value) in document.members(of: overrides) {
                members.add(document.name(name), .node(value))
                if document.name(name, equals: "apns-collapse-id") { collapseID = document.text(value) }
                // A whole number within range: the decoder checked it.
                if document.name(name, equals: "apns-expiration") {
                    expiration = document.integer(value).map(Int64.init)
                }
                if document.name(name, equals: "apns-push-type") { givesPushType = true }
            }
        }
        members.sort()
    }

    func write(to output: inout ByteWriter) {
        members.write(to: &output) { value, output in
            switch value {
            case .literal(let text):
                output.append(UInt8(ascii: "\""))
                output.append(text)
                output.append(UInt8(ascii: "\""))
            case .collapseKey: collapseKey.map { JSONOutput.writeString($0, to: &output) }
            case .derivedExpiration:
                output.append(UInt8(ascii: "\""))
                derivedExpiration.map { JSONOutput.writeInteger($0, to: &output) }
                output.append(UInt8(ascii: "\""))
            case .topic: topic.map { output.append($0) }
            case .node(let node): document.write(node, to: &output)
            }
            return true
        }
    }
}
