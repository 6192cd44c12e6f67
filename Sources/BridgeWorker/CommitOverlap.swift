import Kafka

/// The overlap of a batch's commit with the records that arrive meanwhile, as a state machine
/// the loop drives: told what a poll returned, that a poll failed, or that the commit settled,
/// it says whether to take the records into the next batch, whether to poll again, and at the
/// end what the loop does with the commit and what it holds.
///
/// Records are taken while the commit runs and the next batch has room; a poll that returns
/// anything else (a rebalance), returns after the commit settled, or finds no room is held for
/// the loop to handle once the commit has finished (the next poll completes a revocation, so
/// one is handled after the commit, never during it). A poll's failure, or one to take what it
/// returned, is never lost behind the commit: nothing more is taken, and it is thrown once the
/// commit has finished, or named for the log when the commit failed.
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
        /// `pollFailure` is a poll's, if any.
        case commitFailed(any Error, pollFailure: (any Error)?)
        /// The commit succeeded: finish it, then throw `failure` if a poll failed (its error),
        /// else handle `held`.
        case finish(failure: (any Error)?, held: [ConsumerEvent])
    }

    private var commit: Result<Void, any Error>?
    private var pollFailure: (any Error)?
    private var held: [ConsumerEvent] = []

    /// A commit under way.
    init() {}

    /// Whether records may still be taken: the commit runs, and no poll failed.
    private var isTaking: Bool { commit == nil && pollFailure == nil }

    /// A poll returned `events`; `hasRoom` says whether the next batch may take more.
    mutating func polled(_ events: [ConsumerEvent], hasRoom: Bool) -> Decision {
        guard isTaking, hasRoom, events.allSatisfy(\.isRecord) else {
            held += events
            return .hold
        }
        return .take
    }

    /// Whether to poll again, after the records were taken: while the commit runs and there is
    /// room.
    func pollsAgain(hasRoom: Bool) -> Bool {
        isTaking && hasRoom
    }

    /// A poll failed, or taking what it returned did.
    mutating func failed(_ error: any Error) {
        pollFailure = pollFailure ?? error
    }

    /// The commit settled.
    mutating func settled(_ outcome: Result<Void, any Error>) {
        commit = outcome
    }

    /// How the overlap ends; call once the commit has settled and no poll is in flight.
    func ending() -> Ending {
        if case .failure(let error) = commit { return .commitFailed(error, pollFailure: pollFailure) }
        return .finish(failure: pollFailure, held: held)
    }
}
