import Synchronization

/// Each service account's request rate, as FCM's per-project quota: a token bucket per account
/// holding up to a second's worth of requests. Shared by the connections of one gateway.
public final class SendRates: Sendable {
    /// Requests per second per account; nil for no limit.
    let perSecond: Int?
    private let buckets = Mutex<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// A limit of `perSecond` requests per account, or none.
    public init(perSecond: Int?) {
        self.perSecond = perSecond.map { max($0, 1) }
    }

    /// Nil when `account` may make one more request at `now`; else the seconds to wait.
    public func admit(_ account: String, at now: ContinuousClock.Instant) -> Int? {
        guard let perSecond else { return nil }
        let rate = Double(perSecond)
        return buckets.withLock { buckets in
            var bucket = buckets[account] ?? Bucket(tokens: rate, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(rate, bucket.tokens + max(seconds, 0) * rate)
            bucket.updated = now
            defer { buckets[account] = bucket }
            guard bucket.tokens >= 1 else { return 1 }
            bucket.tokens -= 1
            return nil
        }
    }
}
