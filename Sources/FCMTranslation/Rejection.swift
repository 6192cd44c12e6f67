/// Why a send request is not accepted: the contract's `reason` and a `detail` naming the field.
public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The contract's rejection reasons.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case invalidArgument = "invalid_argument"
        case unsupportedTarget = "unsupported_target"
        case invalidDataKey = "invalid_data_key"
        case payloadTooLarge = "payload_too_large"
    }

    /// The reason, as the status event's `reason` field spells it.
    public var reason: Reason
    /// What is wrong, naming the field, e.g. `message.data.from: reserved key`.
    public var detail: String
    /// The request could not be decoded at all (not JSON, or no target): it goes to the dead
    /// letter topic as well.
    public var isUndecodable: Bool
    /// The request's targets, where they could be read despite the problem: whom the
    /// `rejected` status events are about.
    public var tokens: [String] = []

    /// Creates a rejection.
    public init(_ reason: Reason, _ detail: String, isUndecodable: Bool = false) {
        self.reason = reason
        self.detail = detail
        self.isUndecodable = isUndecodable
    }

    public var description: String { "\(reason.rawValue): \(detail)" }
}
