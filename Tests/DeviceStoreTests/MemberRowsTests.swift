import BridgeCore
import DeviceStore
import PropertyBased
import TestSupport
import Testing

@Suite("Topics' members in the device rows")
struct MemberRowsTests {
    /// Topics whose names prefix one another, and tokens that do too.
    static let topics = ["a", "ab", "news"]
    static let tokens = (0..<12).map { $0 % 3 == 0 ? "x\(String(repeating: "y", count: $0))" : "token-\($0)" }

    /// The change `choice` picks: a topic, a token, and whether it joins.
    static func change(_ choice: Int) -> MemberRowChange {
        MemberRowChange(
            topic: topics[choice % topics.count], token: tokens[choice / topics.count % tokens.count],
            isMember: choice / (topics.count * tokens.count) % 3 != 0)
    }

    @Test("joins and leaves written in batches of any size leave each topic's members, in walk order")
    func writtenInBatches() async {
        await propertyCheck(count: 50, input: Gen.int(in: 0...999).array(of: 0...60), Gen.int(in: 1...8)) {
            choices, batchSize in
            let directory = TemporaryDirectory()
            do {
                let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
                var expected: [String: TopicMembers] = [:]
                let changes = choices.map(Self.change)
                for (number, start) in stride(from: 0, to: changes.count, by: batchSize).enumerated() {
                    let batch = Array(changes[start..<min(start + batchSize, changes.count)])
                    for change in batch {
                        if change.isMember {
                            expected[change.topic, default: TopicMembers()].insert(change.token)
                        } else {
                            expected[change.topic]?.remove(change.token)
                        }
                    }
                    let counts = Dictionary(batch.map { ($0.topic, expected[$0.topic]?.count ?? 0) }) { $1 }
                    try rows.write([], members: batch, memberCounts: counts, checkpoint: Int64(number))
                }
                #expect(try rows.members() == expected.mapValues(\.tokens).filter { !$0.value.isEmpty })
                #expect(try rows.memberCounts() == expected.mapValues(\.count).filter { $0.value > 0 })
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("members read from any cursor, and whether each token is a member, are what the joins and leaves left")
    func read() async {
        await propertyCheck(
            count: 50, input: Gen.int(in: 0...999).array(of: 0...60), Gen.int(in: 0...999).array(of: 1...6),
            Gen.int(in: 1...5)
        ) { choices, cursorChoices, limit in
            let directory = TemporaryDirectory()
            do {
                let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
                let changes = choices.map(Self.change)
                try rows.write([], members: changes, checkpoint: 1)
                var expected: [String: TopicMembers] = [:]
                for change in changes {
                    if change.isMember {
                        expected[change.topic, default: TopicMembers()].insert(change.token)
                    } else {
                        expected[change.topic]?.remove(change.token)
                    }
                }
                let pairs = Self.topics.flatMap { topic in Self.tokens.map { (topic: topic, token: $0) } }
                #expect(
                    try rows.memberships(pairs) == pairs.map { expected[$0.topic]?.contains($0.token) == true })
                for choice in cursorChoices {
                    let topic = Self.topics[choice % Self.topics.count]
                    let token = Self.tokens[choice / Self.topics.count % Self.tokens.count]
                    let bucket = TopicMembers.bucket(of: token)
                    let cursor =
                        choice % 3 == 0
                        ? .start : TopicMembers.Cursor(bucket: bucket, after: choice % 3 == 1 ? token : nil)
                    let chunk = (expected[topic] ?? TopicMembers()).chunk(from: cursor, limit: limit)
                    let read = try rows.members(of: topic, from: cursor, limit: limit)
                    #expect(read.tokens == chunk.members)
                    #expect(read.toEnd == (chunk.next == nil))
                }
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("a replacement leaves exactly the members it gives, and the joins and leaves after it")
    func replaced() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        try rows.write(
            [], members: Self.topics.map { MemberRowChange(topic: $0, token: "old", isMember: true) }, checkpoint: 1)
        try rows.replaceAll(
            with: [], members: ["a": .of(["kept"]), "ab": .of(["new", "old"]), "news": TopicMembers()],
            then: [
                MemberRowChange(topic: "ab", token: "old", isMember: false),
                MemberRowChange(topic: "news", token: "later", isMember: true),
            ], laterCounts: ["ab": 1, "news": 1], checkpoint: 2)
        #expect(try rows.members() == ["a": ["kept"], "ab": ["new"], "news": ["later"]])
        // "a" counted as loaded; "ab" and "news" as the joins and leaves after it left them.
        #expect(try rows.memberCounts() == ["a": 1, "ab": 1, "news": 1])
        #expect(try rows.checkpoint() == 2)
    }
}
