import BridgeCore
import BridgeStore
import DeviceQueues
import DeviceStore
import Foundation
import Logging
import TestSupport
import Testing

/// Device rows kept beside each store: written with it, at its checkpoint, and gone with it.
@Suite("Device rows beside the stores")
struct DeviceRowsBesideStoresTests {
    static let logger = Logger(label: "test")

    static func device(_ firstSeen: Int64) -> DeviceQueue { DeviceQueue(firstSeenAt: firstSeen) }

    /// Every device `rows` holds, by token.
    static func held(_ rows: DeviceRows?) throws -> [String: DeviceQueue] {
        var held: [String: DeviceQueue] = [:]
        try rows?.forEachDevice { held[$0] = $1 }
        return held
    }

    /// `device` after a message of id `id` is sent to it, collapsed by `x` and `z`, and the ids of
    /// the messages that joined or left its queue, as the changelog records name them.
    static func sent(_ id: String, to device: DeviceQueue) -> (DeviceQueue, Set<String>) {
        var device = device
        let key = id == "y" ? nil : "k"
        let message = QueuedMessage(id: id, collapseKey: key, sentAt: 1, expiresAt: nil, apns: Array("{}".utf8))
        let changes = device.send(message, at: 1, rules: QueueRules()).changes
        return (device, Set(changes.compactMap(\.waitingMessageID)))
    }

    @Test("batches held until one write: each device's latest value, with the message rows every batch names")
    func batchesMergedAtTheWrite() throws {
        let files = StoreFiles()
        var directory = try files.directory(deviceRows: true)
        _ = try directory.open(0, logger: Self.logger)
        var device = Self.device(1)
        var checkpoint: Int64 = 1
        // Three sends to an offline device, the third collapsing the first.
        for id in ["x", "y", "z"] {
            let (sent, named) = Self.sent(id, to: device)
            device = sent
            var batch = StoreBatch([("m \(id) a", "1")], checkpoint: checkpoint)
            batch.rows.add([DeviceKey(token: "a"): .init(device: device, messages: .named(named))], to: 0)
            directory.hold(batch)
            checkpoint += 1
            if id == "x" { try directory.takeUnwritten()?.run() }
        }
        try directory.takeUnwritten()?.run()
        #expect(device.waiting.map(\.id) == ["y", "z"])
        #expect(try Self.held(directory.rows[0]) == ["a": device])
    }

    @Test(
        "batches held together say the last of the worker's batches their rows hold, whichever of them has records",
        arguments: [
            ([(false, nil), (false, 3)], 3), ([(false, 3), (false, nil)], 3), ([(true, 2), (false, nil)], 2),
            ([(false, 2), (true, 5)], 5), ([(true, 4), (true, 1)], 4), ([(false, nil), (true, nil)], nil),
        ] as [([(records: Bool, rowsThrough: UInt64?)], UInt64?)])
    func rowsThroughHeld(_ held: [(records: Bool, rowsThrough: UInt64?)], expected: UInt64?) throws {
        let files = StoreFiles()
        var directory = try files.directory(deviceRows: true)
        _ = try directory.open(0, logger: Self.logger)
        for (index, part) in held.enumerated() {
            var batch = part.records ? StoreBatch([("k\(index)", "v")], checkpoint: Int64(index) + 1) : StoreBatch()
            batch.rowsThrough = part.rowsThrough
            directory.hold(batch)
        }
        #expect(directory.takeUnwritten()?.records.rowsThrough == expected)
    }

    @Test("rows are written with their store at its checkpoint, replaced whole, and kept while the partition is away")
    func writtenWithTheStore() throws {
        let files = StoreFiles()
        var directory = try files.directory(deviceRows: true)
        _ = try directory.open(0, logger: Self.logger)
        var batch = StoreBatch([("d a", "1")], checkpoint: 5)
        batch.rows.add([DeviceKey(token: "a"): .init(device: Self.device(1), messages: .all)], to: 0)
        batch.rows.add([DeviceKey(token: "b"): .init(device: Self.device(2), messages: .all)], to: 0)
        directory.hold(batch)
        var later = StoreBatch([("d b", nil)], checkpoint: 6)
        later.rows.add([DeviceKey(token: "b"): .init(device: nil, messages: .all)], to: 0)
        directory.hold(later)
        try directory.takeUnwritten()?.run()
        #expect(try directory.rows[0]?.checkpoint() == 6)
        #expect(try Self.held(directory.rows[0]) == ["a": Self.device(1)])

        // A restore's replacement, the rows in step with their store: nothing to write.
        directory.holdRows(replacing: 0, with: [DeviceKey(token: "c"): Self.device(3)], members: [:])
        #expect(directory.takeUnwritten() == nil)

        // In step, but with a device of theirs held: replaced, the held device gone.
        var before = StoreBatch()
        before.rows.add([DeviceKey(token: "e"): .init(device: Self.device(7), messages: .all)], to: 0)
        directory.hold(before)
        directory.holdRows(replacing: 0, with: [DeviceKey(token: "c"): Self.device(3)], members: [:])
        try directory.takeUnwritten()?.run()
        #expect(try directory.rows[0]?.checkpoint() == 6)
        #expect(try Self.held(directory.rows[0]) == ["c": Self.device(3)])

        // Behind their store: replaced at the store's checkpoint, every other row gone; a batch
        // held after the replacement goes on from it: a member it holds leaves, two join.
        directory.hold(StoreBatch([("d c", "1")], checkpoint: 8))
        try directory.takeUnwritten()?.run()
        directory.holdRows(
            replacing: 0, with: [DeviceKey(token: "f"): Self.device(5)], members: ["news": .of(["a", "b"])])
        var joins = StoreBatch()
        joins.rows.add(
            [
                MemberRowChange(topic: "news", token: "a", isMember: false),
                MemberRowChange(topic: "news", token: "c", isMember: true),
                MemberRowChange(topic: "news", token: "d", isMember: true),
            ], counts: ["news": 3], to: 0)
        directory.hold(joins)
        try directory.takeUnwritten()?.run()
        #expect(try directory.rows[0]?.checkpoint() == 8)
        #expect(try Self.held(directory.rows[0]) == ["f": Self.device(5)])
        #expect(try directory.rows[0]?.members() == ["news": TopicMembers.of(["b", "c", "d"]).tokens])
        #expect(try directory.rows[0]?.memberCounts() == ["news": 3])

        // A replacement dropped at a release replaces nothing once the partition is back.
        directory.hold(StoreBatch([("d g", "1")], checkpoint: 9))
        try directory.takeUnwritten()?.run()
        directory.holdRows(replacing: 0, with: [:], members: [:])
        directory.release(0)
        _ = try directory.open(0, logger: Self.logger)
        var after = StoreBatch([("d c", nil)], checkpoint: 10)
        after.rows.add([DeviceKey(token: "c"): .init(device: Self.device(3), messages: .all)], to: 0)
        directory.hold(after)
        try directory.takeUnwritten()?.run()
        #expect(try directory.rows[0]?.checkpoint() == 10)
        #expect(try Self.held(directory.rows[0]) == ["c": Self.device(3), "f": Self.device(5)])

        // Released with devices held: they are dropped, and the rows stay as their checkpoint says.
        var dropped = StoreBatch([("d d", "1")], checkpoint: 9)
        dropped.rows.add([DeviceKey(token: "d"): .init(device: Self.device(4), messages: .all)], to: 0)
        directory.hold(dropped)
        directory.release(0)
        #expect(directory.takeUnwritten() == nil && directory.rows[0] == nil)
        _ = try directory.open(0, logger: Self.logger)
        #expect(try directory.rows[0]?.checkpoint() == 10)
        #expect(try Self.held(directory.rows[0]) == ["c": Self.device(3), "f": Self.device(5)])
    }

    @Test("rows go with their store: discarded, recreated, expired, or found alone at start")
    func goneWithTheStore() throws {
        let files = StoreFiles()
        do {
            var directory = try files.directory(deviceRows: true)
            for partition: Int32 in [0, 1, 2, 3] {
                _ = try directory.open(partition, logger: Self.logger)
                directory.holdRows(replacing: partition, with: [DeviceKey(token: "a"): Self.device(1)], members: [:])
            }
            try directory.takeUnwritten()?.run()
            try directory.discard(0)
            #expect(directory.rows[0] == nil)
            #expect(!FileManager.default.fileExists(atPath: directory.rowsDirectory(of: 0)))
            _ = try directory.recreate(3)
            #expect(try directory.rows[3]?.checkpoint() == nil && Self.held(directory.rows[3]).isEmpty)
            try FileManager.default.removeItem(atPath: directory.file(of: 2))
        }
        var directory = try files.directory(cleanupDelay: .zero)
        #expect(try directory.removeExpired() == [1, 2, 3])
        for partition: Int32 in [1, 2] {
            #expect(!FileManager.default.fileExists(atPath: directory.rowsDirectory(of: partition)))
        }
    }

    @Test("rows that do not open are deleted and made anew, empty")
    func damagedRowsMadeAnew() throws {
        let files = StoreFiles()
        var directory = try files.directory(deviceRows: true)
        _ = try directory.open(0, logger: Self.logger)
        directory.holdRows(replacing: 0, with: [DeviceKey(token: "a"): Self.device(1)], members: [:])
        try directory.takeUnwritten()?.run()
        directory.release(0)
        let rowsDirectory = directory.rowsDirectory(of: 0)
        #expect(FileManager.default.createFile(atPath: rowsDirectory + "/CURRENT", contents: Data("garbage\n".utf8)))
        _ = try directory.open(0, logger: Self.logger)
        #expect(try directory.rows[0]?.checkpoint() == nil)
        #expect(try Self.held(directory.rows[0]).isEmpty)
    }

    @Test("rows past their store's checkpoint are deleted at the next open; without device rows, so is every row")
    func rowsNotInStep() throws {
        let files = StoreFiles()
        do {
            var directory = try files.directory(deviceRows: true)
            _ = try directory.open(0, logger: Self.logger)
            _ = try directory.open(1, logger: Self.logger)
            directory.hold(StoreBatch([("d a", "1")], checkpoint: 5))
            try directory.takeUnwritten()?.run()
            // As a power loss could leave them: the rows' write kept, the store's lost.
            try directory.rows[0]?.load([("a", Self.device(1))], checkpoint: 9)
            directory.release(0)
            _ = try directory.open(0, logger: Self.logger)
            #expect(try directory.rows[0]?.checkpoint() == nil && Self.held(directory.rows[0]).isEmpty)
        }
        var directory = try files.directory()
        _ = try directory.open(1, logger: Self.logger)
        #expect(directory.rows[1] == nil && !FileManager.default.fileExists(atPath: directory.rowsDirectory(of: 1)))
    }

    @Test(
        "a store write that fails writes none of its rows: the rows never get ahead of their store",
        .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs CAP_SYS_ADMIN"))
    func rowsAfterTheStore() throws {
        let fileSystem = try SmallFileSystem(kilobytes: 4_096)
        defer { fileSystem.unmount() }
        var directory = try StateDirectory(
            path: fileSystem.path, group: "group", topic: "changelog", changelogID: nil, cleanupDelay: .seconds(600),
            deviceRows: true)
        _ = try directory.open(0, logger: Self.logger)
        var batch = StoreBatch([("d a", "1")], checkpoint: 5)
        batch.rows.add([DeviceKey(token: "a"): .init(device: Self.device(1), messages: .all)], to: 0)
        directory.hold(batch)
        try directory.takeUnwritten()?.run()
        var tooLarge = StoreBatch([("d b", String(repeating: "x", count: 8 << 20))], checkpoint: 6)
        tooLarge.rows.add([DeviceKey(token: "b"): .init(device: Self.device(2), messages: .all)], to: 0)
        directory.hold(tooLarge)
        let error = #expect(throws: StateDirectoryError.self) { try directory.takeUnwritten()?.run() }
        #expect(
            error?.reason.hasPrefix("cannot write the store of partition 0") == true, "\(String(describing: error))")
        #expect(try directory.rows[0]?.checkpoint() == 5)
        #expect(try directory.rows[0]?.device("b") == nil)
        // No room to flush the rows: they are left to replay their log, not flushed into a full disk.
        #expect(directory.flushRows().keys.sorted() == [0])
    }
}
