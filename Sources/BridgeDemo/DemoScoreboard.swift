import FCMBridgeClient

/// Everything the demo has seen, and whether every request is accounted for: each message a send
/// reached ends in exactly one of `dispatched`, `collapsed`, `expired` or a `deleted_messages`,
/// each other request in `rejected` or `validated`; each topic or condition send has its
/// `fanned_out`, whose count of devices adds as many messages.
public struct DemoScoreboard: Sendable {
    /// The status types shown, in order.
    public static let shownTypes: [StatusEvent.EventType] = [
        .queued, .dispatched, .delivered, .collapsed, .expired, .deletedMessages, .rejected, .validated,
        .subscribed, .fannedOut,
    ]

    /// Requests the traffic generator's broker took.
    public private(set) var requestsSent = 0
    /// Final statuses the sent requests must end in: one per message, one per other request.
    public private(set) var expectedOutcomes = 0
    /// Messages and requests with a final status (a `deleted_messages` counts each message it
    /// discarded), each once.
    public private(set) var outcomes = 0
    /// Final statuses seen again for a message that had one.
    public private(set) var repeats = 0
    /// Status events seen, by type.
    public private(set) var statuses: [StatusEvent.EventType: Int] = [:]
    /// Topic and condition sends sent that have no `fanned_out` yet.
    public private(set) var pendingFanOuts = 0
    /// Devices the topic and condition sends reached, as their `fanned_out`s count.
    public private(set) var devicesReached = 0
    /// Messages queued for an offline device that have no final status yet.
    public private(set) var waiting: Set<String> = []
    /// Messages devices read from their inboxes.
    public private(set) var inboxMessages = 0
    /// `deleted_messages` notices devices found in their inbox, each followed by a full sync.
    public private(set) var fullSyncs = 0
    /// Messages devices acknowledged.
    public private(set) var acknowledged = 0
    /// Devices online now.
    public private(set) var online = 0
    /// Whether the traffic generator has stopped (a bounded run's duration is over).
    public private(set) var trafficStopped = false
    /// Whether the run was stopped (Ctrl-C) before it could check every request.
    public private(set) var stopped = false
    /// The newest notable events, newest last (at most 3).
    public private(set) var notable: [String] = []

    /// Whether each message's final status is remembered by id, so a repeat is told from a
    /// different message (a bounded run); otherwise final statuses are only counted, in memory
    /// that does not grow with the run.
    public let checksEachMessage: Bool
    /// Whether a repeated final status is allowed (`delivery: at_least_once`, where the contract
    /// allows repeats with the same `message_id`).
    public let allowsRepeats: Bool
    private var finished: Set<String> = []

    public init(checksEachMessage: Bool = true, allowsRepeats: Bool = false) {
        self.checksEachMessage = checksEachMessage
        self.allowsRepeats = allowsRepeats
    }

    /// Whether every sent request has its final statuses, each once, and nothing waits.
    public var accountedFor: Bool {
        outcomes == expectedOutcomes && waiting.isEmpty && pendingFanOuts == 0 && (allowsRepeats || repeats == 0)
    }

    public mutating func record(_ event: DemoEvent) {
        switch event {
        case .sent(let requests, let outcomes, let fanOuts):
            requestsSent += requests
            expectedOutcomes += outcomes
            pendingFanOuts += fanOuts
        case .trafficStopped:
            trafficStopped = true
        case .status(let status):
            record(status)
        case .inbox(let record):
            if record.isDeletedMessagesNotice {
                fullSyncs += 1
                note(
                    "\(record.token) connected, found a deleted_messages notice (\(record.reason ?? "?"), \(record.count ?? 0) messages) and did a full sync"
                )
            } else {
                inboxMessages += 1
            }
        case .acknowledged(let count):
            acknowledged += count
        case .online(let count):
            online = count
        case .stopRequested:
            stopped = true
        case .tick, .failed:
            break
        }
    }

    private mutating func record(_ status: StatusEvent) {
        statuses[status.type, default: 0] += 1
        switch status.type {
        case .queued:
            if let id = status.messageID, !finished.contains(id) { waiting.insert(id) }
        case .dispatched, .collapsed, .expired, .validated:
            finish(status.messageID)
        case .deletedMessages:
            for id in status.messageIDs ?? [] { finish(id) }
            note(
                "\(status.token ?? "?"): \(status.count ?? 0) waiting messages deleted (\(status.reason ?? "?")): the app server's full-sync trigger"
            )
        case .fannedOut:
            let count = status.count ?? 0
            expectedOutcomes += count
            devicesReached += count
            pendingFanOuts -= 1
            note("\(status.topic.map { "topic \($0)" } ?? "a condition"): one send reached \(count) devices")
        case .rejected:
            finish(status.messageID)
            // The mix rejects a few requests for the same reasons over and over: the first says it.
            guard statuses[.rejected] == 1 else { break }
            note("\(status.token ?? "?"): rejected (\(status.reason ?? "?")): \(status.detail ?? "")")
        default:
            break
        }
    }

    /// One final status, for the message `id` or a request without one.
    private mutating func finish(_ id: String?) {
        guard let id else {
            outcomes += 1
            return
        }
        waiting.remove(id)
        guard checksEachMessage else {
            outcomes += 1
            return
        }
        if finished.insert(id).inserted { outcomes += 1 } else { repeats += 1 }
    }

    private mutating func note(_ line: String) {
        notable.append(line)
        if notable.count > 3 { notable.removeFirst(notable.count - 3) }
    }
}
