import PropertyBased
import Testing

@testable import FCMTranslation

/// `SortedMembers` against a model: the last value of each name, names in byte order.
@Suite("Sorted members")
struct SortedMembersTests {
    /// Gathers `members` (in order) and returns what the list keeps, as names and values.
    static func kept(_ members: [(name: String, value: Int)], capacity: Int) -> [(String, Int)] {
        // The names' bytes must outlive the list: one buffer holds them all.
        let bytes = members.flatMap { Array($0.name.utf8) }
        return bytes.withUnsafeBytes { buffer in
            var list = SortedMembers<Int>(capacity: capacity)
            var offset = 0
            for member in members {
                let count = member.name.utf8.count
                let start = buffer.baseAddress.map { $0 + offset } ?? UnsafeRawPointer(bitPattern: 1)!
                list.add(ByteSpan(start: start, count: count, isPlain: true), member.value)
                offset += count
            }
            list.sort()
            return list.members.map {
                (
                    String(decoding: UnsafeRawBufferPointer(start: $0.name.start, count: $0.name.count), as: UTF8.self),
                    $0.value
                )
            }
        }
    }

    /// Keyed by bytes: `String` equality would merge a composed and a decomposed é.
    static func model(_ members: [(name: String, value: Int)]) -> [(String, Int)] {
        var last: [[UInt8]: Int] = [:]
        for member in members { last[Array(member.name.utf8)] = member.value }
        return last.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map {
            (String(decoding: $0.key, as: UTF8.self), $0.value)
        }
    }

    @Test("keeps the last of each name, in byte order, through growth and both sorts")
    func matchesModel() async {
        // Few names, so that they repeat; up to 40 members, past the insertion sort's 16. Each
        // number picks a name and is the member's value. Long names share eight-byte prefixes,
        // for the word-at-a-time comparisons.
        let names = [
            "", "a", "b", "ab", "aa", "\u{E9}", "e\u{301}", "ba", "abc", "b\u{0}", "z", "A", "a b",
            "apns-collapse-id", "apns-collapse-ie", "apns-collapse", "apns-collapse-id-2", "apns-coll\u{E9}",
        ]
        await propertyCheck(count: 500, input: Gen.int(in: 0...999).array(of: 0...40), Gen.int(in: 1...8)) {
            numbers, capacity in
            let members = numbers.map { (name: names[$0 % names.count], value: $0) }
            let kept = Self.kept(members, capacity: capacity)
            let expected = Self.model(members)
            #expect(kept.map { Array($0.0.utf8) } == expected.map { Array($0.0.utf8) })
            #expect(kept.map(\.1) == expected.map(\.1))
        }
    }
}
