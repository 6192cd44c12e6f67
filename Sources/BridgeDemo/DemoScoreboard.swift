import FCMBridgeClient

/// Everything the demo has seen, and whether every request is accounted for: each message a send
/// reached ends in exactly one of `dispatched`, `collapsed`, `expired` or a `deleted_messages`,
/// each other request in `rejected` or `validated`.
public struct DemoScoreboard: Sendable {
    /// The status types shown, in order.
    public static let shownTypes: [(StatusEvent.EventType, String)] = [
        (.queued, "queued"), (.dispatched, "dispatched"), (.delivered, "delivered"), (.collapsed, "collapsed"),
        (.expired, "expired"), (.deletedMessages, "deleted_messages"), (.rejected, "rejected"), (.validated, "validated"),
    ]

    public private(set) var requestsSent = 0
    /// Final statuses the sent requests must end in.
    public private(set) var expectedOutcomes = 0
    /// Final statuses seen (a `deleted_messages` counts each message it discarded).
    public private(set) var outcomes = 0
    public private(set) var statuses: [StatusEvent.EventType: Int] = [:]
    /// Messages queued for an offline device that have no final status yet.
    public private(set) var waiting: Set<String> = []
    public private(set) var inboxMessages = 0
    /// `deleted_messages` notices devices found in their inbox, each followed by a full sync.
    public private(set) var fullSyncs = 0
    public private(set) var acknowledged = 0
    public private(set) var online = 0
    public private(set) var trafficStopped = false
    /// The newest notable events, newest last (at most 3).
    public private(set) var notable: [String] = []

    public init() {}

    /// Whether every sent request has all its final statuses and nothing waits.
    public var accountedFor: Bool { outcomes == expectedOutcomes && waiting.isEmpty }

    public mutating func record(_ event: DemoEvent) {
        switch event {
        case .sent(let requests, let outcomes):
            requestsSent += requests
            expectedOutcomes += outcomes
        case .trafficStopped:
            trafficStopped = true
        case .status(let status):
            record(status)
        case .inbox(let record):
            if record.isDeletedMessagesNotice {
                fullSyncs += 1
                note("\(record.token) connected, found a deleted_messages notice (\(record.reason ?? "?"), \(record.count ?? 0) messages) and did a full sync")
            } else {
                inboxMessages += 1
            }
        case .acknowledged(let count):
            acknowledged += count
        case .online(let count):
            online = count
        case .tick, .stopRequested, .failed:
            break
        }
    }

    private mutating func record(_ status: StatusEvent) {
        statuses[status.type, default: 0] += 1
        switch status.type {
        case .queued:
            if let id = status.messageID { waiting.insert(id) }
        case .dispatched, .collapsed, .expired:
            outcomes += 1
            if let id = status.messageID { waiting.remove(id) }
        case .deletedMessages:
            outcomes += status.count ?? 0
            for id in status.messageIDs ?? [] { waiting.remove(id) }
            note("\(status.token ?? "?"): \(status.count ?? 0) waiting messages deleted (\(status.reason ?? "?")): the app server's full-sync trigger")
        case .rejected:
            outcomes += 1
            // The mix rejects a few requests for the same reasons over and over: the first says it.
            guard statuses[.rejected] == 1 else { break }
            note("\(status.token ?? "?"): rejected (\(status.reason ?? "?")): \(status.detail ?? "")")
        case .validated:
            outcomes += 1
        default:
            break
        }
    }

    private mutating func note(_ line: String) {
        notable.append(line)
        if notable.count > 3 { notable.removeFirst(notable.count - 3) }
    }
}
