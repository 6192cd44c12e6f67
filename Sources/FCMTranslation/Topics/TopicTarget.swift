/// A send's target when it is no device: one topic (v1 `message.topic`, legacy
/// `to: "/topics/NAME"`) or a condition over up to five (`message.condition`, legacy
/// `condition`). Either way a ``TopicCondition``: a topic is the condition `'NAME' in topics`.
public struct TopicTarget: Sendable, Hashable {
    /// How the request named its devices, which `fanned_out` echoes.
    public enum Kind: String, Sendable, Hashable {
        case topic, condition
    }

    /// A topic or a condition.
    public let kind: Kind
    /// The topic's name (without `/topics/`), or the condition as given.
    public let text: String
    /// Which devices the send reaches.
    public let condition: TopicCondition

    /// The target `text` of `kind`, or why FCM would refuse it (the caller names the field).
    public static func parse(_ text: String, as kind: Kind) -> Result<TopicTarget, TopicTargetError> {
        switch kind {
        case .topic:
            switch TopicName.validate(text) {
            case .success(let name):
                return .success(
                    TopicTarget(
                        kind: .topic, text: name, condition: TopicCondition(topics: [name], expression: .topic(0))))
            case .failure(let error):
                return .failure(TopicTargetError(description: error.description))
            }
        case .condition:
            do {
                return .success(TopicTarget(kind: .condition, text: text, condition: try TopicCondition.parse(text)))
            } catch {
                return .failure(TopicTargetError(description: error.description))
            }
        }
    }

    /// The topic whose owner counts the fan-out and keys its `fanned_out`: the first named.
    public var firstTopic: String { condition.topics.first ?? text }
}

/// Why a topic or condition target is refused.
public struct TopicTargetError: Error, Hashable, CustomStringConvertible {
    /// What is wrong with the target; the caller names the field.
    public let description: String
}
