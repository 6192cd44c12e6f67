import Testing

@testable import FCMTranslation

/// Member names as the translation reads them: unescaped, compared as bytes, the last of
/// duplicates winning, written in byte order however many there are.
@Suite("Member names")
struct MemberNameTests {
    @Test("an escaped data key is read unescaped and written escaped only where JSON needs it")
    func escapedKey() throws {
        let message = try #require(
            translate(#"{"to":"t","data":{"k\u0065y":"v","q\"uote":"w","li\u000ane":"x"}}"#).message)
        #expect(message.payload["key"] == .string("v"))
        #expect(message.payload["q\"uote"] == .string("w"))
        #expect(message.payload["li\nne"] == .string("x"))
        let text = String(decoding: message.payloadJSON, as: UTF8.self)
        #expect(text.contains(#""key":"v""#) && text.contains(#""q\"uote":"w""#) && text.contains(#""li\nne":"x""#))
    }

    @Test("of duplicate names the last wins: data, apns.headers and apns.payload.aps")
    func lastDuplicateWins() throws {
        let legacy = try #require(translate(#"{"to":"t","data":{"k":"1","k":"2"}}"#).message)
        #expect(legacy.payload["k"] == .string("2"))
        let v1 = try #require(
            translate(
                #"{"message":{"token":"t","apns":{"headers":{"apns-priority":"5","apns-priority":"10"},"payload":{"aps":{"sound":"a","sound":"b"}}}}}"#
            ).message)
        #expect(v1.headers["apns-priority"] == "10")
        #expect(v1.payload["aps"]?["sound"] == .string("b"))
    }

    @Test("a legacy data value set to null, last, drops the key")
    func nullDropsKey() throws {
        let message = try #require(translate(#"{"to":"t","data":{"k":"1","k":null,"j":"2"}}"#).message)
        #expect(message.payload["k"] == nil && message.payload["j"] == .string("2"))
    }

    @Test("many members are written in byte order")
    func manyMembersSorted() throws {
        let keys = (0..<40).map { "k\(String(format: "%02d", 39 - $0))" }
        let data = keys.map { #""\#($0)":"v""# }.joined(separator: ",")
        let message = try #require(translate(#"{"to":"t","data":{\#(data)}}"#).message)
        let text = String(decoding: message.payloadJSON, as: UTF8.self)
        let written = keys.sorted().map { #""\#($0)":"v""# }.joined(separator: ",")
        #expect(text.contains(written))
    }

    @Test("names are compared as bytes: a composed and a decomposed é are two keys")
    func bytesNotCanonicalEquivalence() throws {
        let message = try #require(translate("{\"to\":\"t\",\"data\":{\"\u{E9}\":\"1\",\"e\u{301}\":\"2\"}}").message)
        let text = String(decoding: message.payloadJSON, as: UTF8.self)
        #expect(text.contains("\"e\u{301}\":\"2\",") && text.contains("\"\u{E9}\":\"1\""))
    }
}
