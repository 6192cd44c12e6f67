/// A send's condition over topics, as FCM takes it: `'name' in topics` operands joined by `&&`,
/// `||` and `!`, with parentheses; `&&` binds tighter than `||`. Parsed by
/// ``TopicCondition/parse(_:)``, which bounds what any input can cost.
public struct TopicCondition: Sendable, Hashable {
    /// A node of the expression; a topic is its index in ``topics``.
    public indirect enum Expression: Sendable, Hashable {
        case topic(Int)
        case not(Expression)
        case and(Expression, Expression)
        case or(Expression, Expression)
    }

    /// The topics the condition names, each once, in the order they first appear.
    public let topics: [String]
    /// The expression over them.
    public let expression: Expression

    /// Whether a device in the topics for which `isMember` holds (given their index in
    /// ``topics``) satisfies the condition.
    public func isSatisfied(by isMember: (Int) -> Bool) -> Bool {
        expression.evaluate(isMember)
    }

    /// The most operands a condition may have (FCM's limit of five topics).
    public static let maxOperands = 5
    /// The deepest nesting of parentheses and `!` a condition may have: far more than five
    /// operands need, and few enough that parsing and evaluating never run deep.
    public static let maxDepth = 16
    /// The longest condition, in bytes: five operands of the longest topic names fit, with
    /// operators and spaces between. A condition travels with every record of its fan-out.
    public static let maxBytes = 5120
}

extension TopicCondition.Expression {
    func evaluate(_ isMember: (Int) -> Bool) -> Bool {
        switch self {
        case .topic(let index): isMember(index)
        case .not(let operand): !operand.evaluate(isMember)
        case .and(let left, let right): left.evaluate(isMember) && right.evaluate(isMember)
        case .or(let left, let right): left.evaluate(isMember) || right.evaluate(isMember)
        }
    }
}
