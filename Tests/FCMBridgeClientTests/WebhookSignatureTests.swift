import FCMBridgeClient
import Foundation
import Testing

@Suite("Webhook signatures")
struct WebhookSignatureTests {
    // Standard Webhooks' own example: the reference library (standardwebhooks on PyPI) signs it so.
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let timestamp: Int64 = 1_614_265_330
    static let body = Array(#"{"test": 2432232314}"#.utf8)
    static let now = Date(timeIntervalSince1970: TimeInterval(timestamp))

    static func signed(with secrets: [String], id: String = id, timestamp: Int64 = timestamp) throws -> [String: String]
    {
        let headers = WebhookSignature.headers(
            id: id, timestamp: timestamp, body: body, secrets: try secrets.map(WebhookSecret.init))
        return Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
    }

    static func verify(_ headers: [String: String], body: [UInt8] = body, secrets: [String] = [secret], now: Date = now)
        throws
    {
        try WebhookVerifier(secrets: try secrets.map(WebhookSecret.init))
            .verify(
                id: headers["webhook-id"], timestamp: headers["webhook-timestamp"],
                signature: headers["webhook-signature"], body: body, now: now)
    }

    @Test("the reference library's signature of the spec's example")
    func referenceVector() throws {
        let headers = try Self.signed(with: [Self.secret])
        #expect(
            headers == [
                "webhook-id": Self.id, "webhook-timestamp": "1614265330",
                "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
            ])
        try Self.verify(headers)
    }

    @Test("a change to any byte of the body fails verification")
    func changedBody() throws {
        let headers = try Self.signed(with: [Self.secret])
        for index in Self.body.indices {
            var body = Self.body
            body[index] ^= 0x01
            #expect(throws: WebhookVerifier.Failure.noMatchingSignature) { try Self.verify(headers, body: body) }
        }
    }

    @Test("a changed id or timestamp, another secret, a damaged signature: no matching signature")
    func changedHeaders() throws {
        let headers = try Self.signed(with: [Self.secret])
        var changed = headers
        changed["webhook-id"] = Self.id + "x"
        #expect(throws: WebhookVerifier.Failure.noMatchingSignature) { try Self.verify(changed) }
        changed = headers
        changed["webhook-timestamp"] = String(Self.timestamp + 1)
        #expect(throws: WebhookVerifier.Failure.noMatchingSignature) { try Self.verify(changed) }
        changed = headers
        changed["webhook-signature"] = "v1,AAAA" + (headers["webhook-signature"] ?? "").dropFirst(7)
        #expect(throws: WebhookVerifier.Failure.noMatchingSignature) { try Self.verify(changed) }
        changed["webhook-signature"] = "v1,not base64!"
        #expect(throws: WebhookVerifier.Failure.noMatchingSignature) { try Self.verify(changed) }
        let other = WebhookSecret.generate()
        #expect(throws: WebhookVerifier.Failure.noMatchingSignature) { try Self.verify(headers, secrets: [other]) }
    }

    @Test("a timestamp more than five minutes from now fails, either way", arguments: [-301, 301, -86_400])
    func tolerance(skew: Int) throws {
        let headers = try Self.signed(with: [Self.secret])
        #expect(throws: WebhookVerifier.Failure.outsideTolerance) {
            try Self.verify(headers, now: Self.now.addingTimeInterval(TimeInterval(-skew)))
        }
        try Self.verify(headers, now: Self.now.addingTimeInterval(skew > 0 ? -299 : 299))
    }

    @Test("during a rotation both secrets sign, and a verifier holding either one accepts")
    func rotation() throws {
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let headers = try Self.signed(with: [old, new])
        #expect(headers["webhook-signature"]?.split(separator: " ").count == 2)
        try Self.verify(headers, secrets: [old])
        try Self.verify(headers, secrets: [new])
        try Self.verify(try Self.signed(with: [new]), secrets: [old, new])
        #expect(throws: WebhookVerifier.Failure.noMatchingSignature) {
            try Self.verify(try Self.signed(with: [new]), secrets: [old])
        }
    }

    @Test("missing headers and a timestamp that is not whole seconds are named")
    func missing() throws {
        let headers = try Self.signed(with: [Self.secret])
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            var partial = headers
            partial[name] = nil
            #expect(throws: WebhookVerifier.Failure.missingHeader(name)) { try Self.verify(partial) }
        }
        var changed = headers
        changed["webhook-timestamp"] = "1614265330.5"
        #expect(throws: WebhookVerifier.Failure.invalidTimestamp) { try Self.verify(changed) }
    }

    @Test("secrets: whsec_ optional, base64 of at least 24 bytes; listed by spaces, commas and lines; never shown")
    func secrets() throws {
        let key = String(Self.secret.dropFirst("whsec_".count))
        #expect(try WebhookSecret(Self.secret) == WebhookSecret(key))
        #expect(throws: WebhookSecret.InvalidSecret.self) { try WebhookSecret("whsec_not base64") }
        #expect(throws: WebhookSecret.InvalidSecret.self) {
            try WebhookSecret("whsec_" + Data(count: 23).base64EncodedString())
        }
        #expect(throws: Never.self) { try WebhookSecret("whsec_" + Data(count: 24).base64EncodedString()) }
        let generated = WebhookSecret.generate()
        #expect(try WebhookSecret.list("# rotation\n\(Self.secret), \(generated)\n\n  \(key)  ").count == 3)
        #expect(try WebhookSecret.list(" \n# none\n").isEmpty)
        #expect(!"\(try WebhookSecret(Self.secret))".contains(key.prefix(8)))
        var dumped = ""
        dump(try WebhookSecret(Self.secret), to: &dumped)
        #expect(!dumped.contains("key") && !dumped.contains("49"), "\(dumped)")
        do {
            _ = try WebhookSecret("whsec_" + key.dropLast(3) + "!!!")
            Issue.record("accepted a damaged secret")
        } catch {
            #expect(!"\(error)".contains(key.prefix(8)))
        }
    }
}
