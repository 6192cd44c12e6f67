/// The attempts to deliver one event, as a state machine: told each answer, it says what to do
/// next. Unavailable answers are retried for as long as it takes, with capped exponential
/// backoff and jitter (or after the webhook's `Retry-After`); refusals are retried too, until
/// the policy's count of them, and then the event is parked so the partition moves on.
public struct DeliveryAttempts: Sendable {
    /// How attempts are spaced, and when a refused event is given up.
    public struct Policy: Sendable, Hashable {
        /// The wait after the first failed attempt.
        public var firstBackoff = Duration.milliseconds(500)
        /// The longest wait between attempts, unless `Retry-After` asks for longer.
        public var maximumBackoff = Duration.seconds(30)
        /// Refusals (4xx other than 408 and 429) after which the event is parked.
        public var refusalsBeforeParking = 5

        /// The defaults: 0.5 s doubling to 30 s, parked after 5 refusals.
        public init() {}
    }

    /// What to do after an answer.
    public enum Action: Sendable, Hashable {
        /// The webhook took the event.
        case delivered
        /// Try again after this long.
        case retry(after: Duration)
        /// The webhook refused it `refusalsBeforeParking` times: park it and go on.
        case park
    }

    /// How attempts are spaced.
    public let policy: Policy
    /// Attempts answered so far.
    public private(set) var attempts = 0
    /// Of those, refusals.
    public private(set) var refusals = 0
    private var backoff: Duration

    /// No attempt yet.
    public init(policy: Policy) {
        self.policy = policy
        backoff = policy.firstBackoff
    }

    /// The next step after `answer`. `jitter`, from 0 up to 1, spreads a backoff over its upper
    /// half, so that watchers retrying one webhook do not retry in step.
    public mutating func answered(_ answer: WebhookAnswer, jitter: Double) -> Action {
        attempts += 1
        switch answer.verdict {
        case .accepted:
            return .delivered
        case .refused:
            refusals += 1
            if refusals >= policy.refusalsBeforeParking { return .park }
            return .retry(after: nextBackoff(jitter: jitter))
        case .unavailable(let retryAfter?):
            // Never sooner than the backoff: a Retry-After of 0 would otherwise retry at once, forever.
            return .retry(after: max(retryAfter, nextBackoff(jitter: jitter)))
        case .unavailable(nil):
            return .retry(after: nextBackoff(jitter: jitter))
        }
    }

    private mutating func nextBackoff(jitter: Double) -> Duration {
        let wait = backoff * (0.5 + (jitter.isFinite ? min(max(jitter, 0), 1) : 0) / 2)
        backoff = min(backoff * 2, policy.maximumBackoff)
        return wait
    }
}
