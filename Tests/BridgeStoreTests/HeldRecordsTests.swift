import BridgeStore
import Logging
import Testing

/// Committed records held for the stores and written later, a commit's worth or more at once:
/// what is written is what writing each commit's records in turn writes, and nothing reaches a
/// store the worker let go of meanwhile.
@Suite("Records held for the stores")
struct HeldRecordsTests {
    static let logger = Logger(label: "test")

    @Test("records held over several commits are written in order, each store at its latest checkpoint")
    func heldInOrder() throws {
        let files = StoreFiles()
        var directory = try files.directory()
        let store = try directory.open(0, logger: Self.logger)
        directory.hold(StoreBatch([("a", "1"), ("b", "1")], checkpoint: 3))
        directory.hold(StoreBatch([("a", "2"), ("b", nil), ("c", "1")], checkpoint: 7))
        #expect(directory.unwritten.count == 5)
        try directory.takeUnwritten()?.run()
        #expect(try StoreReplayTests.stored(in: store) == ["a=2", "c=1"])
        #expect(try store.checkpoint() == 7)
        #expect(directory.takeUnwritten() == nil, "nothing is held once written")
    }

    @Test("records held for a store released, discarded or recreated before they are written never reach it")
    func releasedOrDiscarded() throws {
        let files = StoreFiles()
        var directory = try files.directory()
        for partition: Int32 in 0...3 { _ = try directory.open(partition, logger: Self.logger) }
        directory.hold(StoreBatch([("kept", "1")], partition: 1, checkpoint: 2))
        try directory.takeUnwritten()?.run()
        for partition: Int32 in 0...3 {
            directory.hold(StoreBatch([("late", "1")], partition: partition, checkpoint: 9))
        }
        directory.release(1)
        try directory.discard(2)
        let recreated = try directory.recreate(3)
        try directory.takeUnwritten()?.run()
        let released = try directory.open(1, logger: Self.logger)
        #expect(try StoreReplayTests.stored(in: released) == ["kept=1"])
        #expect(try released.checkpoint() == 2)
        let discarded = try directory.open(2, logger: Self.logger)
        #expect(try discarded.recordCount() == 0)
        #expect(try discarded.checkpoint() == 0)
        #expect(try recreated.recordCount() == 0)
        #expect(try recreated.checkpoint() == 0)
        #expect(try directory[0].map(StoreReplayTests.stored(in:)) == ["late=1"])
    }

    @Test("records of a partition without an open store are not held")
    func noStore() throws {
        let files = StoreFiles()
        var directory = try files.directory()
        _ = try directory.open(0, logger: Self.logger)
        directory.hold(StoreBatch([("a", "1")], partition: 3, checkpoint: 4))
        #expect(directory.takeUnwritten() == nil)
    }

    @Test("records held are due once as many as the pacing says are held, or the first was held as long ago")
    func pacing() throws {
        let files = StoreFiles()
        var directory = try files.directory()
        directory.writePacing = StoreWritePacing(records: 3, age: .seconds(1))
        _ = try directory.open(0, logger: Self.logger)
        let start = ContinuousClock.now
        #expect(directory.takeUnwrittenIfDue(now: start + .seconds(5)) == nil, "nothing held")
        directory.hold(StoreBatch([("a", "1"), ("b", "1")], checkpoint: 2), now: start)
        #expect(directory.takeUnwrittenIfDue(now: start + .milliseconds(999)) == nil)
        #expect(directory.takeUnwrittenIfDue(now: start + .seconds(1))?.records.count == 2, "the first is old enough")
        directory.hold(StoreBatch([("a", "2"), ("b", "2")], checkpoint: 4), now: start + .seconds(2))
        #expect(
            directory.takeUnwrittenIfDue(now: start + .seconds(2)) == nil,
            "held since it was empty, not since the start")
        directory.hold(StoreBatch([("c", "1")], checkpoint: 5), now: start + .seconds(2))
        #expect(directory.takeUnwrittenIfDue(now: start + .seconds(2))?.records.count == 3, "enough are held")
    }

    @Test(
        "held records are too many to go on holding beside a write once twice a write's worth",
        arguments: [
            (65_536, 0, false), (65_536, 131_071, false), (65_536, 131_072, true), (1, 1, false), (1, 2, true),
            (0, 0, true), (.max, .max, false),
        ])
    func backlog(records: Int, held: Int, isFull: Bool) {
        #expect(StoreWritePacing(records: records).isBacklogFull(holding: held) == isFull)
    }
}
