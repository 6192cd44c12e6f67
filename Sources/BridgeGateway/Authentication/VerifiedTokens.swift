import Foundation
import Synchronization

/// Access tokens already verified, with what they grant and until when: an SDK sends the same
/// token for an hour, and verifying it again (HMAC and two JSON decodes) cost an eighth of a
/// send. Bounded: when full, it starts over.
final class VerifiedTokens: Sendable {
    /// The most tokens remembered.
    static let capacity = 10_000

    private struct Entry {
        var caller: Caller
        var expires: Date
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The caller `token` was verified for, while it has not expired at `now`.
    func caller(for token: String, at now: Date) -> Caller? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard entry.expires > now else {
                entries[token] = nil
                return nil
            }
            return entry.caller
        }
    }

    /// Remembers that `token` grants `caller` until `expires`.
    func remember(_ token: String, as caller: Caller, until expires: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(caller: caller, expires: expires)
        }
    }
}
