extension TopicCondition {
    /// Parses `text` (see ``TopicCondition``). Throws why it is not a condition FCM would take:
    /// longer than ``maxBytes``, a syntax error with its position, more than ``maxOperands``
    /// operands, nesting deeper than ``maxDepth``, a topic name FCM would refuse, or a condition
    /// that a device in none of its topics would satisfy (such as `!('a' in topics)`), which would
    /// reach every device.
    public static func parse(_ text: String) throws(TopicConditionError) -> TopicCondition {
        guard text.utf8.count <= maxBytes else {
            throw TopicConditionError("it is \(text.utf8.count) bytes long, over \(maxBytes)")
        }
        var parser = TopicConditionParser(text: Array(text.utf8))
        let expression = try parser.parseOr(depth: 0)
        parser.skipSpace()
        guard parser.position == parser.text.count else { throw parser.error("expected && or || or the end") }
        let condition = TopicCondition(topics: parser.topics, expression: expression)
        if condition.isSatisfied(by: { _ in false }) {
            throw TopicConditionError(
                "it holds for a device in none of its topics, so it would reach every device; name a topic the device must be in"
            )
        }
        return condition
    }
}

/// Why a string is not a condition; the caller names the field.
public struct TopicConditionError: Error, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// A recursive-descent parser whose recursion is bounded by ``TopicCondition/maxDepth``.
///
///     or      := and ( "||" and )*
///     and     := unary ( "&&" unary )*
///     unary   := "!" unary | "(" or ")" | operand
///     operand := "'" name "'" "in" "topics"
private struct TopicConditionParser {
    let text: [UInt8]
    var position = 0
    var topics: [String] = []
    var operands = 0

    mutating func parseOr(depth: Int) throws(TopicConditionError) -> TopicCondition.Expression {
        var left = try parseAnd(depth: depth)
        while consume("||") { left = .or(left, try parseAnd(depth: depth)) }
        return left
    }

    mutating func parseAnd(depth: Int) throws(TopicConditionError) -> TopicCondition.Expression {
        var left = try parseUnary(depth: depth)
        while consume("&&") { left = .and(left, try parseUnary(depth: depth)) }
        return left
    }

    mutating func parseUnary(depth: Int) throws(TopicConditionError) -> TopicCondition.Expression {
        guard depth < TopicCondition.maxDepth else {
            throw error("nested deeper than \(TopicCondition.maxDepth) parentheses and !")
        }
        if consume("!") { return .not(try parseUnary(depth: depth + 1)) }
        if consume("(") {
            let inner = try parseOr(depth: depth + 1)
            guard consume(")") else { throw error("expected )") }
            return inner
        }
        return try parseOperand()
    }

    mutating func parseOperand() throws(TopicConditionError) -> TopicCondition.Expression {
        skipSpace()
        guard position < text.count, text[position] == UInt8(ascii: "'") else {
            if position < text.count, text[position] == UInt8(ascii: "\"") {
                throw error("topic names are quoted with ', not \"")
            }
            throw error("expected 'topic' in topics")
        }
        let start = position + 1
        guard let end = text[start...].firstIndex(of: UInt8(ascii: "'")) else { throw error("unterminated topic name") }
        let given = String(decoding: text[start..<end], as: UTF8.self)
        position = end + 1
        guard consumeWord("in"), consumeWord("topics") else {
            throw error("expected in topics after '\(given.prefix(64))'")
        }
        operands += 1
        guard operands <= TopicCondition.maxOperands else {
            throw TopicConditionError("it names more than \(TopicCondition.maxOperands) topics")
        }
        let name: String
        switch TopicName.validate(given) {
        case .success(let valid): name = valid
        case .failure(let problem): throw TopicConditionError("'\(given.prefix(64))': \(problem)")
        }
        if let index = topics.firstIndex(of: name) { return .topic(index) }
        topics.append(name)
        return .topic(topics.count - 1)
    }

    mutating func skipSpace() {
        while position < text.count,
            text[position] == 0x20 || text[position] == 0x09 || text[position] == 0x0A
                || text[position] == 0x0D
        {
            position += 1
        }
    }

    /// Consumes `token` after any space, if it is next.
    mutating func consume(_ token: StaticString) -> Bool {
        skipSpace()
        let count = token.utf8CodeUnitCount
        guard text.count - position >= count else { return false }
        let matches = token.withUTF8Buffer { expected in
            text[position..<position + count].elementsEqual(expected)
        }
        if matches { position += count }
        return matches
    }

    /// Consumes the word `word` after any space: it must not run on into more letters.
    mutating func consumeWord(_ word: StaticString) -> Bool {
        let start = position
        guard consume(word) else { return false }
        if position < text.count, isWordByte(text[position]) {
            position = start
            return false
        }
        return true
    }

    private func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x5F
    }

    func error(_ expected: String) -> TopicConditionError {
        TopicConditionError("\(expected) at byte \(position + 1)")
    }
}
