import Testing

@testable import FCMTranslation

@Suite("JSON")
struct JSONTests {
    @Test(
        "valid documents parse",
        arguments: [
            (
                #"{"a":[1,-2.5e3,true,false,null,"s"]}"#,
                JSONValue.object([
                    "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .string("s")])
                ])
            ),
            (#" "esc \" \\ \/ \n \u00e9 \ud83d\ude00" "#, .string("esc \" \\ / \n é 😀")),
            ("0", .number("0")),
            ("{}", .object([:])),
        ])
    func parses(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test(
        "invalid documents are rejected",
        arguments: [
            "", "{", "[1,]", "{\"a\":}", "01", "1.", "-", "\"\\ud800\"", "\"\\x\"", "\"a\u{01}\"", "tru", "{} x",
            "{\"a\" 1}",
            String(repeating: "[", count: 101) + String(repeating: "]", count: 101),
        ])
    func rejects(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test("invalid UTF-8 is rejected")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test("nesting up to the limit parses")
    func depthLimit() throws {
        let text = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        _ = try JSONParser.parse(Array(text.utf8))
    }

    @Test(
        "the densest documents parse: a document has room for every node its size allows",
        arguments: [
            ("0", 1), ("[]", 1), ("[0]", 2), ("[0,0,0,0,0,0,0,0,0,0,0]", 12), ("[[],[],[],[]]", 5), ("[[[[[[]]]]]]", 6),
            (#"{"":0,"":0}"#, 5), (#"[""]"#, 2), (#"{"":[],"":{}}"#, 5),
            ("[" + Array(repeating: "0", count: 5000).joined(separator: ",") + "]", 5001),
        ])
    func densest(text: String, nodes: Int32) throws {
        let document = try JSONDocument(parsing: Array(text.utf8))
        #expect(document[document.root].next == nodes, "the root's next node is one past the last")
    }

    /// A document of n bytes first gets room for n / 16 + 16 nodes and no unescaped names:
    /// 35 bytes of `[0,...]` hold 18 nodes, exactly that room; 37 bytes hold one node more.
    @Test(
        "documents that outgrow compact storage parse as any other",
        arguments: [
            (zeros(17), JSONValue.array(Array(repeating: .number("0"), count: 17))),
            (zeros(18), JSONValue.array(Array(repeating: .number("0"), count: 18))),
            (#"{"a\u0062":1,"\"q\"":[]}"#, JSONValue.object(["ab": .number("1"), "\"q\"": .array([])])),
        ])
    func outgrowsCompactStorage(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test(
        "a document that outgrows compact storage before its error reports that error",
        arguments: [
            (String(zeros(18).dropLast()) + ",]", 37, "unexpected character"),
            (#"{"a\u0062":1,}"#, 13, "expected a member name"),
        ])
    func errorAfterOutgrowing(text: String, offset: Int, reason: String) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try JSONParser.parse(Array(text.utf8)) }
    }

    /// `[0,0,...]` with `count` zeros: 2 * count + 1 bytes, count + 1 nodes.
    static func zeros(_ count: Int) -> String {
        "[" + Array(repeating: "0", count: count).joined(separator: ",") + "]"
    }

    @Test("writing escapes what JSON requires and sorts members")
    func writes() {
        let value = JSONValue.object(["b": .string("q\"\\\n\u{01}é"), "a": .array([.integer(1), .null, .bool(true)])])
        #expect(value.jsonString == #"{"a":[1,null,true],"b":"q\"\\\n\u0001é"}"#)
    }

    @Test("what is written parses back to the same value")
    func roundTrip() throws {
        let value = JSONValue.object(["k": .array([.string("\u{7f}\t/"), .number("1.50"), .object(["x": .null])])])
        #expect(try JSONParser.parse(value.jsonBytes) == value)
    }
}
