/// What the webhook made of one attempt to deliver an event.
public struct WebhookAnswer: Sendable, Hashable {
    /// What the answer means for the event.
    public enum Verdict: Sendable, Hashable {
        /// 2xx: delivered.
        case accepted
        /// 5xx, 408, 429, a network error or another answer that may change: try again, after
        /// `retryAfter` when the webhook said (429's `Retry-After`).
        case unavailable(retryAfter: Duration?)
        /// Any other 4xx, or a redirect (which is not followed: a POST redirected would reach
        /// the new address as a GET without the event): the webhook refuses this event, and will
        /// again.
        case refused
    }

    /// The HTTP status; nil when there was no answer (a network error or a timeout).
    public var status: Int?
    /// What the answer said, or why there was none: for the log and the parking topic.
    public var detail: String
    /// The answer's `Retry-After`, read.
    public var retryAfter: Duration?

    /// An answer with `status` (nil: none came), saying `detail`, asking to wait `retryAfter`.
    public init(status: Int?, detail: String, retryAfter: Duration? = nil) {
        self.status = status
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// What the answer means for the event.
    public var verdict: Verdict {
        guard let status else { return .unavailable(retryAfter: nil) }
        switch status {
        case 200..<300: return .accepted
        case 408: return .unavailable(retryAfter: nil)
        case 429: return .unavailable(retryAfter: retryAfter)
        case 300..<500: return .refused
        default: return .unavailable(retryAfter: nil)
        }
    }

    /// The answer's detail, short enough for a log line.
    public var summary: Substring { detail.prefix(200) }

    /// The `answer` label of the attempts metric: `2xx`, `3xx`, `408`, `429`, `4xx`, `5xx`,
    /// `network`, or `other` for a status outside 200-599.
    public var metricLabel: String {
        guard let status else { return "network" }
        switch status {
        case 408, 429: return String(status)
        case 200..<600: return "\(status / 100)xx"
        default: return "other"
        }
    }

    /// Every value ``metricLabel`` takes.
    public static let metricLabels = ["2xx", "3xx", "408", "429", "4xx", "5xx", "network", "other"]
}
