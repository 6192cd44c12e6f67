import Kafka

/// The overlap of a batch's commit with the records that arrive meanwhile, and with the write of
/// the records earlier commits left for the local stores, as a state machine the loop drives:
/// told what a poll returned, that a poll failed, that the store write ended, or that the commit settled,
/// it says whether to take the records into the next batch, whether to poll again, and at the
/// end what the loop does with the commit and what it holds.
///
/// Records are taken while the commit or the store write runs and the next batch has room; a
/// poll that returns anything else (a rebalance), returns after both ended, or finds no room is held for
/// the loop to handle once the commit has finished (the next poll completes a revocation, so
/// one is handled after the commit, never during it). A poll's failure, or one to take what it
/// returned, is never lost behind the commit: nothing more is taken, and it is thrown once the
/// commit has finished. So is a store write's failure: the commit is kept, and the worker ends.
/// Only one failure is thrown; the ending names the others, for the log (a full disk behind a
/// failed commit).
struct CommitOverlap {
    /// What to do with the events a poll returned.
    enum Decision: Equatable {
        /// Take the records into the next batch.
        case take
        /// Keep them for after the commit.
        case hold
    }

    /// How the overlap ends, once the commit and every poll have answered.
    enum Ending {
        /// The commit failed: fail the sealed batch with this cause (and end the worker);
        /// `alsoFailed` are a poll's and the store write's failures, if any.
        case commitFailed(any Error, alsoFailed: [any Error])
        /// The commit succeeded: finish it, then throw `failure` if a poll failed (its error)
        /// or the store write did, else handle `held`; `alsoFailed` is the store write's failure
        /// when a poll's is thrown.
        case finish(failure: (any Error)?, alsoFailed: [any Error], held: [ConsumerEvent])
    }

    private var commit: Result<Void, any Error>?
    private var isStoring: Bool
    private var pollFailure: (any Error)?
    private var storeFailure: (any Error)?
    private var held: [ConsumerEvent] = []

    /// A commit under way, and with it a store write when `storing`.
    init(storing: Bool = false) {
        isStoring = storing
    }

    /// Whether records may still be taken: the commit or the store write runs, and nothing failed.
    private var isTaking: Bool {
        guard pollFailure == nil, storeFailure == nil else { return false }
        switch commit {
        case nil: return true
        case .success: return isStoring
        case .failure: return false
        }
    }

    /// A poll returned `events`; `hasRoom` says whether the next batch may take more.
    mutating func polled(_ events: [ConsumerEvent], hasRoom: Bool) -> Decision {
        guard isTaking, hasRoom, events.allSatisfy(\.isRecord) else {
            held += events
            return .hold
        }
        return .take
    }

    /// Whether to poll again, after the records were taken: while the commit or the store write
    /// runs and there is room.
    func pollsAgain(hasRoom: Bool) -> Bool {
        isTaking && hasRoom
    }

    /// A poll failed, or taking what it returned did.
    mutating func failed(_ error: any Error) {
        pollFailure = pollFailure ?? error
    }

    /// The write of the records held for the local stores ended.
    mutating func stored(_ outcome: Result<Void, any Error>) {
        isStoring = false
        if case .failure(let error) = outcome { storeFailure = storeFailure ?? error }
    }

    /// The commit settled.
    mutating func settled(_ outcome: Result<Void, any Error>) {
        commit = outcome
    }

    /// How the overlap ends; call once the commit has settled, the store write ended, and no
    /// poll is in flight.
    func ending() -> Ending {
        let failures = [pollFailure, storeFailure].compactMap { $0 }
        if case .failure(let error) = commit { return .commitFailed(error, alsoFailed: failures) }
        return .finish(failure: failures.first, alsoFailed: Array(failures.dropFirst()), held: held)
    }
}
