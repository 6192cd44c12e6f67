import FCMTranslation
import Testing

@Suite("Token problems")
struct TokenProblemTests {
    static let escape = "must not hold control characters, quotes or backslashes"
    static let longest = String(repeating: "t", count: 4096)
    /// A String made from a slice, with the problem at its very end.
    static let slice = String((String(repeating: "t", count: 99) + "\ntail").dropLast(4))

    @Test(
        "a token is refused for a character JSON must escape, or past the size limit",
        arguments: [
            ("dGVzdC10b2tlbjpBUEE5MWJH", nil), ("", nil), ("with space and é", nil), ("\u{7F}", nil), (longest, nil),
            ("a\"b", escape), ("a\\b", escape), ("tab\there", escape), ("\u{1}", escape), (slice, escape),
            (longest + "t", "4097 bytes, over 4096"),
        ] as [(String, String?)])
    func problem(token: String, expected: String?) {
        #expect(RequestDecoder.tokenProblem(token) == expected)
    }
}
