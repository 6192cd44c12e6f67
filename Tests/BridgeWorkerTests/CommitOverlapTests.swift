import Kafka
import Testing

@testable import BridgeWorker

/// The commit's overlap with the records that arrive meanwhile, step by step as the loop drives
/// it: what the chaos runs reach only by chance, on purpose and without a broker.
@Suite("A commit overlapping the next batch")
struct CommitOverlapTests {
    struct Failure: Error, Equatable {
        var what: String
    }

    static func records(_ offsets: ClosedRange<Int64>) -> [ConsumerEvent] {
        offsets.map {
            .record(ConsumerRecord(topicPartition: TopicPartition("in", 0), offset: $0, key: nil, value: nil))
        }
    }

    static let revoked = ConsumerEvent.partitionsRevoked([TopicPartition("in", 0)], lost: false)

    /// The ending, as text a test compares: `commit failed: <what>`, followed by `, also:
    /// [<what>]` when a poll failed too, or `finish` with the poll's failure it throws after and
    /// the held events' offsets and kinds.
    static func describe(_ ending: CommitOverlap.Ending) -> String {
        switch ending {
        case .commitFailed(let error, let pollFailure):
            return "commit failed: \(what(error))" + (pollFailure.map { ", also: [\"\(what($0))\"]" } ?? "")
        case .finish(let failure, let held):
            let events = held.map { event -> String in
                switch event {
                case .record(let record): "\(record.offset)"
                case .partitionsRevoked: "revoked"
                case .partitionsAssigned: "assigned"
                case .endOfPartition: "end"
                }
            }
            return "finish, failure: \(failure.map(what) ?? "none"), held: \(events)"
        }
    }

    private static func what(_ error: any Error) -> String { (error as? Failure)?.what ?? "\(error)" }

    @Test("records are taken while the commit runs and there is room; the commit's end stops the polling")
    func takesWhileCommitting() {
        var overlap = CommitOverlap()
        #expect(overlap.polled(Self.records(1...3), hasRoom: true) == .take)
        #expect(overlap.pollsAgain(hasRoom: true))
        #expect(overlap.polled(Self.records(4...5), hasRoom: true) == .take)
        overlap.settled(.success(()))
        #expect(!overlap.pollsAgain(hasRoom: true))
        // A poll that was in flight as the commit ended is held for the loop.
        #expect(overlap.polled(Self.records(6...6), hasRoom: true) == .hold)
        #expect(Self.describe(overlap.ending()) == "finish, failure: none, held: [\"6\"]")
    }

    @Test(
        "a rebalance during the commit is held, with nothing taken after it, and handled once the commit has finished")
    func rebalanceDuringCommit() {
        var overlap = CommitOverlap()
        #expect(overlap.polled(Self.records(1...2), hasRoom: true) == .take)
        #expect(overlap.polled([Self.revoked], hasRoom: true) == .hold)
        overlap.settled(.success(()))
        #expect(Self.describe(overlap.ending()) == "finish, failure: none, held: [\"revoked\"]")
    }

    @Test("a poll's failure during the commit is not hidden: the commit finishes, then the failure ends the loop")
    func pollErrorDuringCommit() {
        var overlap = CommitOverlap()
        #expect(overlap.polled(Self.records(1...2), hasRoom: true) == .take)
        overlap.failed(Failure(what: "poll"))
        #expect(!overlap.pollsAgain(hasRoom: true), "nothing more is polled")
        #expect(overlap.polled(Self.records(3...4), hasRoom: true) == .hold, "nor taken")
        overlap.settled(.success(()))
        #expect(Self.describe(overlap.ending()) == "finish, failure: poll, held: [\"3\", \"4\"]")
    }

    @Test("a commit that fails with records already taken fails the sealed batch, whatever the polls did")
    func commitFailureWithRecordsTaken() {
        var overlap = CommitOverlap()
        #expect(overlap.polled(Self.records(1...4), hasRoom: true) == .take)
        overlap.failed(Failure(what: "poll"))
        overlap.settled(.failure(Failure(what: "commit")))
        #expect(Self.describe(overlap.ending()) == "commit failed: commit, also: [\"poll\"]")
    }

    @Test("a full next batch takes nothing more: what arrives is held, and no poll follows")
    func noRoom() {
        var overlap = CommitOverlap()
        #expect(overlap.polled(Self.records(1...2), hasRoom: true) == .take)
        #expect(!overlap.pollsAgain(hasRoom: false))
        #expect(overlap.polled(Self.records(3...4), hasRoom: false) == .hold)
        overlap.settled(.success(()))
        #expect(Self.describe(overlap.ending()) == "finish, failure: none, held: [\"3\", \"4\"]")
    }

    @Test("a poll that returned records and a rebalance together is held whole: no record overtakes the revocation")
    func mixedPollHeldWhole() {
        var overlap = CommitOverlap()
        #expect(overlap.polled(Self.records(1...1) + [Self.revoked], hasRoom: true) == .hold)
        overlap.settled(.success(()))
        #expect(Self.describe(overlap.ending()) == "finish, failure: none, held: [\"1\", \"revoked\"]")
    }
}
