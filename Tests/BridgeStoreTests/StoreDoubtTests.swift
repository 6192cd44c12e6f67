import BridgeCore
import BridgeStore
import Foundation
import GRDB
import Logging
import Testing

/// A store that cannot be trusted is never used: it is deleted and the partition starts empty,
/// to be restored from its changelog.
@Suite("Stores in doubt")
struct StoreDoubtTests {
    static let logger = Logger(label: "test")

    /// A store of partition 0 holding `records` (two by default), checkpointed past them, closed.
    static func writeStore(
        _ files: borrowing StoreFiles, group: String = "group", changelogID: String? = nil,
        records: [(String, String)] = [("d a", "{}"), ("d b", "{}")]
    ) throws {
        var directory = try files.directory(group: group, changelogID: changelogID)
        _ = try directory.open(0, logger: logger)
        var batch = StoreBatch()
        for (key, value) in records { batch.append(key, value) }
        batch.checkpoints = [0: Int64(records.count)]
        directory.hold(batch)
        try directory.takeUnwritten()?.run()
    }

    /// Opens partition 0's store again as group `group`; returns its checkpoint, its record
    /// count, and why `PartitionStore.open` doubts it (nil when it does not).
    static func reopen(_ files: borrowing StoreFiles, group: String = "group") throws -> (
        checkpoint: Int64, records: Int, doubt: String?
    ) {
        var doubt: String?
        do {
            _ = try PartitionStore.open(
                at: try files.directory(group: group).file(of: 0),
                identity: StoreIdentity(group: group, topic: "changelog", partition: 0), changelogID: nil)
        } catch {
            doubt = error.reason
        }
        var directory = try files.directory(group: group)
        let store = try directory.open(0, logger: logger)
        return (try store.checkpoint(), try store.recordCount(), doubt)
    }

    @Test("a valid store is kept")
    func validKept() throws {
        let files = StoreFiles()
        try Self.writeStore(files)
        let reopened = try Self.reopen(files)
        #expect(reopened.doubt == nil)
        #expect(reopened.checkpoint == 2 && reopened.records == 2)
    }

    @Test("a new store has the page size and journal it is tuned for")
    func tuning() throws {
        let files = StoreFiles()
        try Self.writeStore(files)
        let file = try files.directory().file(of: 0)
        let header = try Data(contentsOf: URL(fileURLWithPath: file)).prefix(20)
        // The header's page size (big-endian, bytes 16-17) and its write version (18: 2 is WAL).
        #expect(header.count == 20 && Int(header[16]) << 8 | Int(header[17]) == 16_384 && header[18] == 2)
    }

    @Test("another group's store is rebuilt")
    func foreignGroup() throws {
        let files = StoreFiles()
        try Self.writeStore(files, group: "other")
        let reopened = try Self.reopen(files)
        #expect(reopened.doubt?.contains(#"group "other""#) == true)
        #expect(reopened.checkpoint == 0 && reopened.records == 0)
    }

    /// Ways a store's file is damaged.
    enum Damage: CaseIterable, Sendable {
        case truncated, headerOverwritten, pagesOverwritten, notADatabase

        func apply(to data: inout Data) {
            switch self {
            case .truncated: data = data.prefix(data.count / 2)
            case .headerOverwritten: data.replaceSubrange(0..<100, with: Data(repeating: 7, count: 100))
            case .pagesOverwritten:
                let start = data.count / 4
                data.replaceSubrange(start..<data.count, with: Data(repeating: 0xA5, count: data.count - start))
            case .notADatabase: data = Data("not a database".utf8)
            }
        }
    }

    @Test("a damaged file is rebuilt", arguments: Damage.allCases)
    func damaged(damage: Damage) throws {
        let files = StoreFiles()
        try Self.writeStore(files)
        let file = URL(fileURLWithPath: try files.directory().file(of: 0))
        var data = try Data(contentsOf: file)
        damage.apply(to: &data)
        try data.write(to: file)
        let reopened = try Self.reopen(files)
        #expect(reopened.doubt != nil)
        #expect(reopened.checkpoint == 0 && reopened.records == 0)
    }
}

extension StoreDoubtTests {
    /// Opens partition 0's store as `reopen` does, knowing the changelog's topic id `changelogID`.
    static func open(_ files: borrowing StoreFiles, changelogID: String?) throws -> (records: Int, doubt: String?) {
        var doubt: String?
        let path = try files.directory().file(of: 0)
        do {
            _ = try PartitionStore.open(
                at: path, identity: StoreIdentity(group: "group", topic: "changelog", partition: 0),
                changelogID: changelogID)
        } catch {
            doubt = error.reason
        }
        var directory = try StateDirectory(
            path: files.path, group: "group", topic: "changelog", changelogID: changelogID, cleanupDelay: .seconds(600))
        return (try directory.open(0, logger: logger).recordCount(), doubt)
    }

    @Test("a store written from another incarnation of the changelog (another topic id) is rebuilt, under the new id")
    func changelogCreatedAgain() throws {
        let files = StoreFiles()
        try Self.writeStore(files, changelogID: "a")
        #expect(try Self.open(files, changelogID: "a") == (2, nil))
        // A cluster that gives no id checks nothing.
        #expect(try Self.open(files, changelogID: nil) == (2, nil))
        let recreated = try Self.open(files, changelogID: "b")
        #expect(
            recreated.doubt
                == "it was written from another incarnation of the changelog (topic id a, now b): the topic was deleted and created again"
        )
        #expect(recreated.records == 0)
        // The new store is the new incarnation's.
        #expect(try Self.open(files, changelogID: "b").doubt == nil)
        #expect(try Self.open(files, changelogID: "a").doubt?.contains("(topic id b, now a)") == true)
    }

    @Test("a store written without the changelog's topic id is rebuilt once an id is known; an empty one adopts it")
    func writtenWithoutID() throws {
        let files = StoreFiles()
        try Self.writeStore(files)
        let learned = try Self.open(files, changelogID: "a")
        #expect(
            learned.doubt
                == "it was written without the changelog's topic id (now a): it cannot be told from a changelog deleted and created again since"
        )
        #expect(learned.records == 0)
        // The rebuilt store keeps the id: no doubt under it, and another is one.
        #expect(try Self.open(files, changelogID: "a") == (0, nil))
        #expect(try Self.open(files, changelogID: "b").doubt?.contains("(topic id a, now b)") == true)

        let empty = StoreFiles()
        do {
            var directory = try empty.directory()
            _ = try directory.open(0, logger: Self.logger)
        }
        #expect(try Self.open(empty, changelogID: "a").doubt == nil)
        #expect(try Self.open(empty, changelogID: "b").doubt?.contains("(topic id a, now b)") == true)
    }

    /// Runs `sql` on partition 0's store file, as another program writing to it would.
    static func execute(_ sql: String, onStoreOf files: borrowing StoreFiles) throws {
        let database = try DatabaseQueue(path: try files.directory().file(of: 0))
        try database.write { try $0.execute(sql: sql) }
        try database.close()
    }

    @Test("a checkpoint changed on disk, which would skip changelog records, makes the store a doubt")
    func checkpointChanged() throws {
        let files = StoreFiles()
        try Self.writeStore(files)
        try Self.execute("UPDATE identity SET checkpoint = 1000", onStoreOf: files)
        let reopened = try Self.reopen(files)
        #expect(reopened.doubt == "its identity and checkpoint do not match their checksum: the file was damaged")
        #expect(reopened.checkpoint == 0 && reopened.records == 0)
    }

    @Test("a store of an earlier format is rebuilt, saying so, whatever its identity row holds")
    func earlierFormat() throws {
        let files = StoreFiles()
        // Format 1's tables: no checksums, no topic id.
        try Self.execute(
            #"""
            CREATE TABLE identity (
                single INTEGER PRIMARY KEY CHECK (single = 1), format INTEGER NOT NULL,
                "group" TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
                checkpoint INTEGER NOT NULL);
            CREATE TABLE record (
                sequence INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, value BLOB NOT NULL, time INTEGER,
                collapse_key BLOB, expires_at BLOB);
            INSERT INTO identity VALUES (1, 1, 'group', 'changelog', 0, 2);
            INSERT INTO record (key, value) VALUES (x'642061', x'7b7d');
            """#, onStoreOf: files)
        let reopened = try Self.reopen(files)
        #expect(reopened.doubt == "it is of format 1, not 3")
        #expect(reopened.checkpoint == 0 && reopened.records == 0)
    }

    @Test("a byte changed inside a stored value, which SQLite does not see, makes the store a doubt")
    func valueByteChanged() throws {
        let files = StoreFiles()
        let filler = String(repeating: "A", count: 64)
        try Self.writeStore(files, records: [("d a", #"{"filler":"\#(filler)"}"#)])

        let file = URL(fileURLWithPath: try files.directory().file(of: 0))
        var data = try Data(contentsOf: file)
        let at = try #require(data.firstRange(of: Data(filler.utf8))).lowerBound + 10
        data[at] = UInt8(ascii: "B")
        try data.write(to: file)

        let store = try PartitionStore.open(
            at: file.path, identity: StoreIdentity(group: "group", topic: "changelog", partition: 0), changelogID: nil)
        #expect {
            try store.forEachRecord { _, _ in }
        } throws: { error in
            (error as? StoreDoubt)?.reason
                == "the record at sequence 1 does not match its checksum: the file was damaged"
        }
    }
}

extension Error {
    /// A ``StoreDoubt``'s reason, or the error's description.
    fileprivate var reason: String { (self as? StoreDoubt)?.reason ?? "\(self)" }
}
