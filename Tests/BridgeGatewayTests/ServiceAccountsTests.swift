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

@Suite struct GoogleErrorTests {
    @Test func anInvalidArgumentIsFCMsError() throws {
        let body = String(decoding: GoogleError.invalidArgument("message.token: required").body, as: UTF8.self)
        #expect(
            body
                == #"{"error":{"code":400,"details":[{"@type":"type.googleapis.com\/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}],"message":"message.token: required","status":"INVALID_ARGUMENT"}}"#
        )
    }

    @Test func anUnauthenticatedErrorHasNoFCMDetail() {
        let body = String(decoding: GoogleError.unauthenticated("no token").body, as: UTF8.self)
        #expect(body == #"{"error":{"code":401,"message":"no token","status":"UNAUTHENTICATED"}}"#)
    }
}

@Suite struct SendRatesTests {
    @Test func anAccountOverItsRateWaitsAndOthersDoNot() {
        let rates = SendRates(perSecond: 2)
        let start = ContinuousClock.now
        #expect(rates.admit("a", at: start) == nil)
        #expect(rates.admit("a", at: start) == nil)
        #expect(rates.admit("a", at: start) == 1)
        #expect(rates.admit("b", at: start) == nil)
        #expect(rates.admit("a", at: start + .milliseconds(500)) == nil)
        #expect(rates.admit("a", at: start + .milliseconds(500)) == 1)
    }

    @Test func noLimitAdmitsAll() {
        let rates = SendRates(perSecond: nil)
        let start = ContinuousClock.now
        #expect((0..<10_000).allSatisfy { _ in rates.admit("a", at: start) == nil })
    }
}
