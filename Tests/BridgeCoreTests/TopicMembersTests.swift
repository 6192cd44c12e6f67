import PropertyBased
import Testing

@testable import BridgeCore

/// A topic's members: the set they form, and the walk a fan-out makes over them.
@Suite("Topic members")
struct TopicMembersTests {
    /// Every member, walked in chunks of `limit` from `start`; each chunk's `next`. Records an
    /// issue for a chunk over `limit`.
    static func walk(_ members: TopicMembers, limit: Int, from start: TopicMembers.Cursor = .start) -> (
        members: [String], steps: [TopicMembers.Cursor]
    ) {
        var all: [String] = []
        var steps: [TopicMembers.Cursor] = []
        var next: TopicMembers.Cursor? = start
        while let from = next {
            let chunk = members.chunk(from: from, limit: limit)
            #expect(chunk.members.count <= limit, "a chunk of \(chunk.members.count), over \(limit)")
            all += chunk.members
            next = chunk.next
            if let next { steps.append(next) }
        }
        return (all, steps)
    }

    /// Whether a walk meets `token` before it reaches `cursor`.
    static func isBefore(_ token: String, _ cursor: TopicMembers.Cursor) -> Bool {
        let bucket = TopicMembers.bucket(of: token)
        guard bucket == cursor.bucket, let after = cursor.after else { return bucket < cursor.bucket }
        return !after.utf8.lexicographicallyPrecedes(token.utf8)
    }

    /// `count` tokens that share one bucket, as a producer could choose them.
    static let colliding: [String] = {
        let target = TopicMembers.bucket(of: "collide-0")
        return Array((0...).lazy.map { "collide-\($0)" }.filter { TopicMembers.bucket(of: $0) == target }.prefix(40))
    }()

    @Test("insert and remove say whether they changed anything; the count follows")
    func setOperations() {
        var members = TopicMembers()
        #expect(members.insert("a") && !members.insert("a") && members.insert("b"))
        #expect(members.count == 2 && members.contains("a") && !members.contains("c"))
        #expect(members.remove("a") && !members.remove("a") && !members.remove("never"))
        #expect(members.count == 1 && !members.contains("a") && members.contains("b"))
    }

    @Test("tokens equal as strings but not as bytes are two members")
    func bytesNotCanonicalEquivalence() {
        var members = TopicMembers()
        #expect(members.insert("caf\u{E9}") && members.insert("cafe\u{301}"))
        #expect(members.count == 2)
    }

    @Test("the bucket is the top half of murmur2 as Kafka's Java client computes it, the same in every process")
    func stableBucket() {
        // Utils.murmur2 of "21" is -973932308 and of "foobar" -790332482 (Kafka's own test vectors).
        #expect(TopicMembers.bucket(of: "21") == UInt16(truncatingIfNeeded: UInt32(bitPattern: -973_932_308) >> 16))
        #expect(TopicMembers.bucket(of: "foobar") == UInt16(truncatingIfNeeded: UInt32(bitPattern: -790_332_482) >> 16))
    }

    @Test("random changes: the members are those a plain set holds; a walk meets each once")
    func matchesASet() async {
        let operations = Gen.int(in: 0...399).array(of: 0...300)
        await propertyCheck(count: 300, input: operations, Gen.int(in: 1...50)) { operations, limit in
            var members = TopicMembers()
            var reference: Set<String> = []
            for operation in operations {
                // A third of them share one bucket, so that buckets of many members are exercised.
                let token = operation % 3 == 0 ? Self.colliding[operation % 40] : "token-\(operation % 200)"
                if operation < 200 {
                    #expect(members.insert(token) == reference.insert(token).inserted)
                } else {
                    #expect(members.remove(token) == (reference.remove(token) != nil))
                }
            }
            #expect(members.count == reference.count)
            let walked = Self.walk(members, limit: limit).members
            #expect(walked.count == reference.count && Set(walked) == reference)
        }
    }

    @Test("a walk resumed from any step where it stopped meets the rest, even after members came and went")
    func resumeFromAnyStep() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...400), Gen.int(in: 1...40)) { size, limit in
            var members = TopicMembers()
            for index in 0..<size { members.insert("device-\(index)") }
            for token in Self.colliding.prefix(size % 40) { members.insert(token) }
            let (all, steps) = Self.walk(members, limit: limit)
            #expect(all.count == members.count && Set(all).count == all.count)
            for step in steps {
                let before = Set(all.filter { Self.isBefore($0, step) })
                // Members that join or leave behind the walk change nothing; ahead of it, they do.
                var changed = members
                let late = (0..<200).map { "late-\($0)" }
                let joinBehind = late.first { Self.isBefore($0, step) }
                let joinAhead = late.first { !Self.isBefore($0, step) }
                let leaveAhead = all.first { !Self.isBefore($0, step) }
                for token in [joinBehind, joinAhead].compactMap({ $0 }) { changed.insert(token) }
                if let leaveAhead { changed.remove(leaveAhead) }
                if let leaveBehind = before.first { changed.remove(leaveBehind) }
                let rest = Self.walk(changed, limit: limit, from: step).members
                #expect(Set(rest).isDisjoint(with: before), "a member met before the step is met again")
                let expected = Set(all.filter { !Self.isBefore($0, step) }).union([joinAhead].compactMap { $0 })
                    .subtracting([leaveAhead].compactMap { $0 })
                #expect(Set(rest) == expected && rest.count == expected.count)
            }
        }
    }

    @Test("tokens chosen to share a bucket: still a set, and every chunk stops at its limit")
    func oneFullBucket() {
        var members = TopicMembers()
        let inserted = Self.colliding.map { members.insert($0) }
        #expect(inserted.allSatisfy { $0 })
        #expect(Self.colliding.count == 40 && members.count == 40)
        #expect(Self.colliding.allSatisfy(members.contains))
        let again = members.insert(Self.colliding[7])
        #expect(!again)
        for limit in [1, 3, 7, 40, 100] {
            let (all, steps) = Self.walk(members, limit: limit)
            #expect(Set(all) == Set(Self.colliding) && all.count == 40)
            #expect(steps.count == (40 + limit - 1) / limit - 1)
        }
        let removed = members.remove(Self.colliding[3])
        #expect(removed && !members.contains(Self.colliding[3]) && members.count == 39)
    }
}
