import Testing

@testable import BridgeGateway

@Suite struct ProjectIDTests {
    @Test(arguments: ["example", "my-project-123", "google.com:my-project", "a"])
    func googlesProjectIdsAreTakenAsTheyAre(_ text: String) throws {
        #expect(try ProjectID(text).text == text)
    }

    /// Anything an answer would have to escape, or no project can have, is refused before use.
    @Test(arguments: ["", "Example", "a\"b", "a/b", "a\\b", "é", String(repeating: "a", count: 101), "a b"])
    func otherTextIsForbidden(_ text: String) {
        #expect(throws: GoogleError.self) { try ProjectID(text) }
    }
}
