import PropertyBased
import Testing

@testable import BridgeCore

@Suite("Message ids")
struct MessageIDTests {
    @Test(
        "an id is the partition, the offset and the token index, in decimal",
        arguments: [
            (Int32(3), Int64(1207), 0, "3:1207:0"),
            (0, 0, 0, "0:0:0"),
            (2_147_483_647, 9_223_372_036_854_775_807, 999, "2147483647:9223372036854775807:999"),
            (-1, -1, 0, "-1:-1:0"),
            (Int32.min, Int64.min, 1, "-2147483648:-9223372036854775808:1"),
        ])
    func make(partition: Int32, offset: Int64, tokenIndex: Int, expected: String) {
        #expect(MessageID.make(partition: partition, offset: offset, tokenIndex: tokenIndex) == expected)
    }

    @Test("ids of a record's position are well formed and name that position")
    func wellFormed() async {
        await propertyCheck(
            count: 500, input: Gen.int32(in: 0...Int32.max), Gen.int64(in: 0...Int64.max), Gen.int(in: 0...999)
        ) { partition, offset, index in
            let id = MessageID.make(partition: partition, offset: offset, tokenIndex: index)
            #expect(MessageID.isWellFormed(id))
            #expect(id.split(separator: ":").map(String.init) == [String(partition), String(offset), String(index)])
        }
    }
}
