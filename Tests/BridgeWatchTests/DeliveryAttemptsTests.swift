import BridgeWatch
import Foundation
import Testing

@Suite("Webhook answers and delivery attempts")
struct DeliveryAttemptsTests {
    static func answer(_ status: Int?, retryAfter: Duration? = nil) -> WebhookAnswer {
        WebhookAnswer(status: status, detail: "", retryAfter: retryAfter)
    }

    @Test(
        "what each answer means, and its metric label",
        arguments: [
            (200, WebhookAnswer.Verdict.accepted, "2xx"), (204, .accepted, "2xx"), (301, .refused, "3xx"),
            (307, .refused, "3xx"),
            (400, .refused, "4xx"), (401, .refused, "4xx"), (404, .refused, "4xx"), (410, .refused, "4xx"),
            (499, .refused, "4xx"),
            (408, .unavailable(retryAfter: nil), "408"), (429, .unavailable(retryAfter: nil), "429"),
            (500, .unavailable(retryAfter: nil), "5xx"), (503, .unavailable(retryAfter: nil), "5xx"),
            (700, .unavailable(retryAfter: nil), "other"), (nil, .unavailable(retryAfter: nil), "network"),
        ] as [(Int?, WebhookAnswer.Verdict, String)])
    func verdict(status: Int?, verdict: WebhookAnswer.Verdict, label: String) {
        #expect(Self.answer(status).verdict == verdict)
        #expect(Self.answer(status).metricLabel == label)
        #expect(WebhookAnswer.metricLabels.contains(label))
    }

    @Test("429 carries its Retry-After; other statuses ignore one")
    func retryAfterOnlyFor429() {
        #expect(Self.answer(429, retryAfter: .seconds(7)).verdict == .unavailable(retryAfter: .seconds(7)))
        #expect(Self.answer(503, retryAfter: .seconds(7)).verdict == .unavailable(retryAfter: nil))
    }

    @Test(
        "Retry-After: seconds or an HTTP date, from now, at most an hour; anything else is nothing",
        arguments: [
            ("0", Duration?.some(.zero)), ("7", .seconds(7)), (" 120 ", .seconds(120)), ("3600", .seconds(3600)),
            ("86400", .seconds(3600)),
            ("99999999999999999999999", .seconds(3600)), ("Sat, 01 Jan 2000 00:00:30 GMT", .seconds(30)),
            ("Fri, 31 Dec 1999 23:59:00 GMT", .zero), ("-5", nil), ("1.5", nil), ("", nil), ("soon", nil),
        ])
    func retryAfter(value: String, expected: Duration?) {
        #expect(RetryAfter.parse(value, now: Date(timeIntervalSince1970: 946_684_800)) == expected)
    }

    @Test("unavailable answers back off from 0.5 s, doubling to 30 s, each wait jittered over its upper half")
    func backoff() {
        var attempts = DeliveryAttempts(policy: .init())
        var waits: [Duration] = []
        for _ in 0..<10 {
            guard case .retry(let wait) = attempts.answered(Self.answer(503), jitter: 1) else {
                Issue.record("not a retry")
                return
            }
            waits.append(wait)
        }
        #expect(waits == [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30].map { Duration.milliseconds(Int64($0 * 1000)) })
        var low = DeliveryAttempts(policy: .init())
        #expect(low.answered(Self.answer(nil), jitter: 0) == .retry(after: .milliseconds(250)))
        #expect(low.answered(Self.answer(500), jitter: 0.5) == .retry(after: .milliseconds(750)))
        #expect(low.answered(Self.answer(200), jitter: 0.5) == .delivered)
        #expect(low.attempts == 3 && low.refusals == 0)
    }

    @Test("429 waits its Retry-After, never less than the backoff; a jitter that is not a number is none")
    func honoursRetryAfter() {
        var attempts = DeliveryAttempts(policy: .init())
        #expect(
            attempts.answered(Self.answer(429, retryAfter: .seconds(42)), jitter: 0.3) == .retry(after: .seconds(42)))
        #expect(attempts.answered(Self.answer(429), jitter: 1) == .retry(after: .seconds(1)))
        #expect(attempts.answered(Self.answer(429, retryAfter: .zero), jitter: 1) == .retry(after: .seconds(2)))
        #expect(attempts.answered(Self.answer(503), jitter: .nan) == .retry(after: .seconds(2)))
        #expect(attempts.answered(Self.answer(503), jitter: -.infinity) == .retry(after: .seconds(4)))
    }

    @Test("an event refused as often as the policy allows is parked; other failures in between do not count")
    func parkAfterRefusals() {
        var policy = DeliveryAttempts.Policy()
        policy.refusalsBeforeParking = 3
        var attempts = DeliveryAttempts(policy: policy)
        let answers = [400, 503, 404, nil, 408, 429, 422] as [Int?]
        let actions = answers.map { attempts.answered(Self.answer($0), jitter: 0) }
        #expect(actions.last == .park)
        #expect(actions.dropLast().allSatisfy { if case .retry = $0 { true } else { false } })
        #expect(attempts.refusals == 3 && attempts.attempts == 7)
        var once = DeliveryAttempts(
            policy: {
                var p = DeliveryAttempts.Policy()
                p.refusalsBeforeParking = 1
                return p
            }())
        #expect(once.answered(Self.answer(400), jitter: 0) == .park)
    }
}
