import FCMTranslation
import PropertyBased
import Testing

/// FCM's condition grammar: operators, precedence, parentheses, the limits, and hostile input.
@Suite("Topic conditions")
struct TopicConditionTests {
    /// Whether `text` holds for a device in `topics`; nil when it does not parse.
    static func holds(_ text: String, in topics: Set<String>) -> Bool? {
        guard let condition = try? TopicCondition.parse(text) else { return nil }
        return condition.isSatisfied { topics.contains(condition.topics[$0]) }
    }

    static func rejection(_ text: String) -> String? {
        do {
            _ = try TopicCondition.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test(
        "each operator, and && binding tighter than ||",
        arguments: [
            ("'a' in topics", ["a"], true),
            ("'a' in topics", ["b"], false),
            ("'a' in topics && 'b' in topics", ["a"], false),
            ("'a' in topics && 'b' in topics", ["a", "b"], true),
            ("'a' in topics || 'b' in topics", ["b"], true),
            ("'a' in topics && !('b' in topics)", ["a"], true),
            ("'a' in topics && !('b' in topics)", ["a", "b"], false),
            ("'a' in topics || 'b' in topics && 'c' in topics", ["a"], true),  // a || (b && c)
            ("'a' in topics || 'b' in topics && 'c' in topics", ["b"], false),
            ("('a' in topics || 'b' in topics) && 'c' in topics", ["a"], false),
            ("('a' in topics || 'b' in topics) && 'c' in topics", ["b", "c"], true),
            ("'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)", ["TopicA", "TopicC"], true),
            ("'/topics/a' in topics", ["a"], true),
            ("  'a'   in   topics&&'b' in topics ", ["a", "b"], true),
        ] as [(String, [String], Bool)])
    func operators(text: String, topics: [String], expected: Bool) {
        #expect(Self.holds(text, in: Set(topics)) == expected)
    }

    @Test("the topics are named once each, in the order they first appear")
    func topicsInOrder() throws {
        let condition = try TopicCondition.parse("'b' in topics && ('a' in topics || 'b' in topics)")
        #expect(condition.topics == ["b", "a"])
    }

    @Test(
        "a condition FCM would not take is refused with why",
        arguments: [
            ("!('a' in topics)", "none of its topics"),
            ("'a' in topics || !('b' in topics)", "none of its topics"),
            ("!('a' in topics && 'b' in topics)", "none of its topics"),
            (
                "'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics || 'e' in topics || 'f' in topics",
                "more than 5"
            ),
            ("\"a\" in topics", "quoted with '"),
            ("'a' in topics &&", "expected 'topic' in topics at byte 17"),
            ("'a' in topics & 'b' in topics", "expected && or || or the end"),
            ("'a' in topic", "expected in topics"),
            ("'a' in topicsx", "expected in topics"),
            ("('a' in topics", "expected )"),
            ("'a' in topics)", "expected && or || or the end"),
            ("'a", "unterminated"),
            ("", "expected 'topic' in topics"),
            ("'a b' in topics", "only letters, digits"),
            ("'' in topics", "empty"),
        ] as [(String, String)])
    func refused(text: String, reason: String) {
        let rejection = Self.rejection(text)
        #expect(rejection?.contains(reason) == true, "\(rejection ?? "accepted")")
    }

    @Test("deep nesting is refused at its limit, and hostile input never runs deep")
    func nesting() {
        let atLimit = String(repeating: "(", count: 15) + "'a' in topics" + String(repeating: ")", count: 15)
        #expect(Self.holds(atLimit, in: ["a"]) == true)
        let over = String(repeating: "(", count: 16) + "'a' in topics" + String(repeating: ")", count: 16)
        #expect(Self.rejection(over)?.contains("nested deeper than 16") == true)
        let hostile = String(repeating: "(", count: 10_000) + "'a' in topics" + String(repeating: ")", count: 10_000)
        #expect(Self.rejection(hostile)?.contains("20013 bytes long, over 5120") == true)
        let deepWithinLength =
            String(repeating: "(", count: 2_500) + "'a' in topics" + String(repeating: ")", count: 2_500)
        #expect(Self.rejection(deepWithinLength)?.contains("nested deeper") == true)
        #expect(Self.rejection(String(repeating: "!", count: 5_000) + "'a' in topics")?.contains("nested") == true)
        let longName = "'" + String(repeating: "x", count: 901) + "' in topics"
        #expect(Self.rejection(longName)?.contains("this one has 901") == true)
    }

    @Test("malformed input never traps: random text from the grammar's own characters")
    func malformedInput() async {
        let pieces = Gen.element(of: [
            "'a'", "'b'", " in ", "topics", "&&", "||", "!", "(", ")", "'", " ", "&", "|", "x",
        ])
        await propertyCheck(count: 2000, input: pieces.array(of: 0...20)) { pieces in
            _ = try? TopicCondition.parse(pieces.compactMap { $0 }.joined())
        }
    }

    @Test("random conditions agree with a reference evaluator on every set of topics")
    func agreesWithReference() async {
        await propertyCheck(count: 1000, input: Gen.int(in: 0...99).array(of: 1...14), Gen.bool) { codes, fully in
            var reader = codes.makeIterator()
            let tree = Reference.build(&reader, operands: TopicCondition.maxOperands, depth: 0).tree
            let text = tree.render(fullyParenthesized: fully)
            let pool = Reference.pool
            let everyone = (0..<(1 << pool.count)).map { mask in Set(pool.indices.filter { mask & (1 << $0) != 0 }) }
            if tree.evaluate([]) {
                #expect(Self.rejection(text)?.contains("none of its topics") == true, "\(text)")
                return
            }
            guard let condition = try? TopicCondition.parse(text) else {
                Issue.record("refused: \(text)")
                return
            }
            for members in everyone {
                let parsed = condition.isSatisfied { index in
                    members.contains(pool.firstIndex(of: condition.topics[index]) ?? -1)
                }
                #expect(parsed == tree.evaluate(members), "\(text) with \(members.map { pool[$0] }.sorted())")
            }
        }
    }
}

/// Conditions built from random codes, rendered to text, and evaluated directly.
private indirect enum Reference {
    case topic(Int)
    case not(Reference)
    case and(Reference, Reference)
    case or(Reference, Reference)

    static let pool = ["t0", "t1", "t2", "t3", "t4"]

    /// A tree of at most `operands` operands and bounded depth, read from `codes`, with the
    /// operands it used.
    static func build(_ codes: inout IndexingIterator<[Int]>, operands: Int, depth: Int) -> (
        tree: Reference, used: Int
    ) {
        let code = codes.next() ?? 0
        if depth >= 4 || code % 4 == 0 || (operands < 2 && code % 4 != 1) {
            return (.topic(code % pool.count), 1)
        }
        if code % 4 == 1 {
            let operand = build(&codes, operands: operands, depth: depth + 1)
            return (.not(operand.tree), operand.used)
        }
        let left = build(&codes, operands: operands - 1, depth: depth + 1)
        let right = build(&codes, operands: operands - left.used, depth: depth + 1)
        let tree: Reference = code % 4 == 2 ? .and(left.tree, right.tree) : .or(left.tree, right.tree)
        return (tree, left.used + right.used)
    }

    func evaluate(_ members: Set<Int>) -> Bool {
        switch self {
        case .topic(let index): members.contains(index)
        case .not(let operand): !operand.evaluate(members)
        case .and(let left, let right): left.evaluate(members) && right.evaluate(members)
        case .or(let left, let right): left.evaluate(members) || right.evaluate(members)
        }
    }

    /// FCM's text: every operand in parentheses when `fullyParenthesized`, else only where
    /// precedence needs them.
    func render(fullyParenthesized: Bool) -> String {
        switch self {
        case .topic(let index): return "'\(Self.pool[index])' in topics"
        case .not(let operand): return "!(\(operand.render(fullyParenthesized: fullyParenthesized)))"
        case .and(let left, let right):
            return "\(left.operand(of: .and, fullyParenthesized)) && \(right.operand(of: .and, fullyParenthesized))"
        case .or(let left, let right):
            return "\(left.operand(of: .or, fullyParenthesized)) || \(right.operand(of: .or, fullyParenthesized))"
        }
    }

    private enum Operator { case and, or }

    private func operand(of parent: Operator, _ fully: Bool) -> String {
        let text = render(fullyParenthesized: fully)
        let needs: Bool =
            switch self {
            case .or: parent == .and || fully
            case .and: fully
            case .topic, .not: false
            }
        return needs ? "(\(text))" : text
    }
}
