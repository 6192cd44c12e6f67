import PropertyBased
import Testing

@testable import BridgeCore

/// A partition whose topics' members are served from its rows reads, before each batch, whether
/// each member its hops name is one and a walk's chunk from its cursor; with the joins and leaves
/// the rows do not hold yet laid over what it read, it must answer as a partition holding every
/// member.
@Suite("Topics' members served from the rows")
struct ServedMembersTests {
    static let topic = "news"
    static let partition: Int32 = 0
    /// Tokens of their own buckets, and tokens sharing one.
    static let pool = (0..<20).map { "member-\($0)" } + TopicMembersTests.colliding.prefix(12)

    /// When the rows come to hold the first batch's changes: never, before the second batch reads
    /// them, or while it runs (its reads from before or after the write).
    enum FirstBatchWritten: CaseIterable {
        case never, beforeReads, afterReadsOfOld, afterReadsOfNew
    }

    @Test(
        "a walk's chunk, its next cursor and the member counts are those of every member held, whatever left or joined",
        arguments: FirstBatchWritten.allCases)
    func chunkLikeHeld(written: FirstBatchWritten) async {
        let change = Gen.int(in: 0...(2 * Self.pool.count - 1))
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...999).array(of: 0...24), change.array(of: 0...12),
            change.array(of: 0...3),
            Gen.int(in: 0...99),
            Gen.int(in: 1...4), Gen.int(in: 0...70)
        ) { rowsChosen, first, second, cursorChoice, limit, bytesChoice in
            var rows = TopicMembers()
            for choice in rowsChosen { rows.insert(Self.pool[choice % Self.pool.count]) }
            var held = rows
            var states = TopicStates()
            states.adopt(Self.partition)
            for token in rows.tokens { states.apply(.member(topic: Self.topic, token: token, isMember: true), in: 0) }
            states.serveMembers(Self.partition, heldUntil: nil)
            #expect(states.partitions[Self.partition]?.members.isEmpty == true)

            // The first batch: its joins and leaves.
            Self.batch(first, of: &states, held: &held, rows: rows, walkFrom: nil, limit: limit)
            let firstBatch = states.openBatch
            let afterFirst = held
            if written == .beforeReads { states.written(through: firstBatch) }
            states.seal(firstBatch)

            // The second: a chunk from a cursor, taken after its joins and leaves.
            let cursor = Self.cursor(cursorChoice, in: afterFirst)
            let readRows: TopicMembers
            switch written {
            case .never, .afterReadsOfOld: readRows = rows
            case .beforeReads, .afterReadsOfNew: readRows = afterFirst
            }
            if written == .afterReadsOfOld || written == .afterReadsOfNew {
                Self.batch(
                    [], of: &states, held: &held, rows: readRows, walkFrom: cursor, limit: limit, changesToCome: second,
                    thenWritten: firstBatch)
            } else {
                Self.batch(
                    [], of: &states, held: &held, rows: readRows, walkFrom: cursor, limit: limit, changesToCome: second)
            }
            let maxBytes = bytesChoice == 0 ? Int.max : bytesChoice
            let end = cursorChoice % 3 == 0 ? TopicMembers.bucketCount : Int(cursor.bucket) + 1 + cursorChoice * 700
            let served = states.members(of: Self.topic, from: cursor, in: Self.partition)
            let expected = held.chunk(from: cursor, before: end, limit: limit, maxBytes: maxBytes)
            let chunk = served?.chunk(from: cursor, before: end, limit: limit, maxBytes: maxBytes)
            #expect(chunk?.members == expected.members)
            #expect(chunk?.next == expected.next)
            #expect(states.memberCount(of: Self.topic, in: Self.partition) == held.count)
            #expect(states.membershipCount == held.count)
        }
    }

    @Test(
        "a rebuilt partition holds its members until the rows hold the batch it is written with, and reads none till then"
    )
    func heldUntilWritten() {
        var states = DeviceStates()
        states.adopt(Self.partition)
        for token in ["a", "b"] {
            states.apply(.member(topic: Self.topic, token: token, isMember: true), in: Self.partition)
        }
        states.serve(Self.partition, written: false)
        var reads = MemberReads()
        reads.memberships[Self.topic] = ["a", "c"]
        #expect(states.topics.membersToRead(reads, in: Self.partition) == nil)
        states.apply(.member(topic: Self.topic, token: "c", isMember: true), in: Self.partition)
        let replacement = states.seal()
        _ = states.seal()
        #expect(states.topics.membershipsInMemory == 3)
        states.written(through: replacement)
        // Let go at the seal, not while a batch may still use them.
        #expect(states.topics.membershipsInMemory == 3)
        _ = states.seal()
        #expect(states.topics.membershipsInMemory == 0 && states.topics.membershipCount == 3)
        let toRead = states.topics.membersToRead(reads, in: Self.partition)
        #expect(toRead?.memberships.map(\.token) == ["a", "c"])
    }

    /// One batch: reads what its hops (`changes`, then `changesToCome`, named together) and a
    /// walk from `walkFrom` name from `rows`, then applies the changes; the rows hold batch
    /// `thenWritten` once read.
    static func batch(
        _ changes: [Int], of states: inout TopicStates, held: inout TopicMembers, rows: TopicMembers,
        walkFrom cursor: TopicMembers.Cursor?, limit: Int, changesToCome: [Int] = [], thenWritten: UInt64? = nil
    ) {
        let all = (changes + changesToCome).map(change)
        var reads = MemberReads()
        reads.memberships[topic] = all.map(\.token)
        reads.leaves[topic] = all.count { !$0.isMember }
        if let cursor { reads.walks[topic] = [cursor] }
        if let toRead = states.membersToRead(reads, in: partition, chunkMembers: limit) {
            let areMembers = toRead.memberships.map { rows.contains($0.token) }
            let walked = toRead.walks.map { walk in
                let chunk = rows.chunk(from: walk.cursor, limit: walk.rows)
                return (tokens: chunk.members, toEnd: chunk.next == nil)
            }
            states.admit(toRead, areMembers: areMembers, walked: walked, in: partition)
        }
        if let thenWritten { states.written(through: thenWritten) }
        for (token, isMember) in all {
            states.apply(.member(topic: topic, token: token, isMember: isMember), in: partition)
            if isMember { held.insert(token) } else { held.remove(token) }
        }
    }

    /// The join or leave `choice` picks.
    static func change(_ choice: Int) -> (token: String, isMember: Bool) {
        (pool[choice % pool.count], choice >= pool.count)
    }

    /// A cursor `choice` picks: the start, a bucket's start, or after a member or a token.
    static func cursor(_ choice: Int, in members: TopicMembers) -> TopicMembers.Cursor {
        let token = pool[choice % pool.count]
        let bucket = TopicMembers.bucket(of: token)
        switch choice % 4 {
        case 0: return .start
        case 1: return TopicMembers.Cursor(bucket: bucket, after: nil)
        case 2: return TopicMembers.Cursor(bucket: bucket, after: token)
        default:
            let steps = TopicMembersTests.walk(members, limit: 2).steps
            return steps.isEmpty ? .start : steps[choice % steps.count]
        }
    }
}
