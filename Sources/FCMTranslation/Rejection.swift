/// Why a send request is not accepted: the contract's `reason` and a `detail` naming the field.
public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The contract's rejection reasons.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case invalidArgument = "invalid_argument"
        case unsupportedTarget = "unsupported_target"
        case invalidDataKey = "invalid_data_key"
        case payloadTooLarge = "payload_too_large"
        case tooManyTopics = "too_many_topics"
    }

    /// The reason, as the status event's `reason` field spells it.
    public var reason: Reason
    /// What is wrong, naming the field, e.g. `message.data.from: reserved key`; at most
    /// ``maximumDetailBytes``, as it may quote the input.
    public var detail: String {
        didSet { detail = Self.capped(detail) }
    }
    /// The request could not be decoded at all (not JSON, or no target): it goes to the dead
    /// letter topic as well.
    public var isUndecodable: Bool
    /// The request's targets, where they could be read despite the problem: whom the
    /// `rejected` status events are about.
    public var tokens: [String] = []
    /// The request's topic or condition target, where it could be read despite the problem: what
    /// the `rejected` status is keyed by and names.
    public var topicTarget: TopicTarget? {
        get { topicTargetBox?.value }
        set { topicTargetBox = newValue.map(Box.init) }
    }
    /// ``topicTarget`` on the heap: a rejection travels inside every decoded request's result.
    private var topicTargetBox: Box<TopicTarget>?

    /// The longest ``detail``, in bytes: a longer one is cut on a character boundary and ends in `…`.
    public static let maximumDetailBytes = 256

    /// Creates a rejection.
    public init(_ reason: Reason, _ detail: String, isUndecodable: Bool = false) {
        self.reason = reason
        self.detail = Self.capped(detail)
        self.isUndecodable = isUndecodable
    }

    public var description: String { "\(reason.rawValue): \(detail)" }

    /// `text` cut to ``maximumDetailBytes`` on a character boundary, ending in `…` when cut: for
    /// any text about a record that may quote it.
    public static func capped(_ detail: String) -> String {
        guard detail.utf8.count > maximumDetailBytes else { return detail }
        let ellipsis = "…"
        var end = detail.utf8.index(detail.utf8.startIndex, offsetBy: maximumDetailBytes - ellipsis.utf8.count)
        while end > detail.startIndex, end.samePosition(in: detail.unicodeScalars) == nil {
            end = detail.utf8.index(before: end)
        }
        return String(detail[..<end]) + ellipsis
    }
}
