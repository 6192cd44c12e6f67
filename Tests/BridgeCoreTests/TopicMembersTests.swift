import PropertyBased
import Testing

@testable import BridgeCore

/// A topic's members: the set they form, and the walk a fan-out makes over them.
@Suite("Topic members")
struct TopicMembersTests {
    /// Every member, walked in chunks of about `limit` from bucket 0; and each chunk's `next`.
    static func walk(_ members: TopicMembers, limit: Int, from start: Int = 0) -> (members: [String], steps: [Int]) {
        var all: [String] = []
        var steps: [Int] = []
        var next: Int? = start
        while let from = next {
            let chunk = members.chunk(from: from, limit: limit)
            all += chunk.members
            next = chunk.next
            if let next { steps.append(next) }
        }
        return (all, steps)
    }

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
                let token = "token-\(operation % 200)"
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
            let (all, steps) = Self.walk(members, limit: limit)
            for step in steps {
                let before = Set(all.prefix { TopicMembers.bucket(of: $0) < step })
                // A member that joins behind the walk is not met; one that joins ahead is.
                var changed = members
                let behind = (0...).lazy.map { "late-\($0)" }.first { TopicMembers.bucket(of: $0) < step }
                let ahead = (0...).lazy.map { "late-\($0)" }.first { TopicMembers.bucket(of: $0) >= step }
                if let behind { changed.insert(behind) }
                if let ahead { changed.insert(ahead) }
                let rest = Self.walk(changed, limit: limit, from: step).members
                #expect(Set(rest).isDisjoint(with: before), "a member met before the step is met again")
                #expect(Set(rest).union(before) == Set(all).union([ahead].compactMap { $0 }))
            }
        }
    }
}
