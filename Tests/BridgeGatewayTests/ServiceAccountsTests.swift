import BridgeGateway
import Foundation
import Testing

@Suite struct ServiceAccountsTests {
    @Test(arguments: [
        (#"{"accounts": [{"projects": ["p"], "keys": {}}]}"#, "missing accounts[0].client_email"),
        (
            #"{"accounts": [{"client_email": "a@b", "projects": [], "keys": {"k": "x"}}]}"#,
            "accounts[0].projects is empty"
        ),
        (#"{"accounts": [{"client_email": "a@b", "projects": ["p"], "keys": {}}]}"#, "accounts[0].keys is empty"),
        (
            #"{"accounts": [{"client_email": "a@b", "projects": ["p"], "keys": {"k1": "not a key"}}]}"#,
            "accounts[0].keys.k1 is not an RSA certificate or public key"
        ),
        ("[1, 2]", "not an accounts file"),
        (
            #"{"accounts": [{"client_email": "a@b", "projects": ["Example"], "keys": {"k": "x"}}]}"#,
            #"accounts[0].projects[0] "Example" is not a project id"#
        ),
    ])
    func aBadFileIsRefusedNamingTheField(_ json: String, _ expected: String) {
        #expect {
            try ServiceAccounts(json: Data(json.utf8), source: "accounts.json")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("accounts.json") && text.contains(expected)
        }
    }

    @Test func anAccountIsListedOnce() throws {
        let accounts = try #require(
            try JSONSerialization.jsonObject(with: TokenFixture.accountsJSON) as? [String: [[String: Any]]])
        let entry = try #require(accounts["accounts"]?.first)
        let twice = try JSONSerialization.data(withJSONObject: ["accounts": [entry, entry]])
        #expect {
            try ServiceAccounts(json: twice, source: "f")
        } throws: { error in
            "\(error)".contains("is listed twice")
        }
    }
}
