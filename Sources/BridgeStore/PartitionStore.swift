import BridgeCore
import Foundation
import GRDB

/// One state partition's local store: its changelog, compacted (the latest record of each key,
/// in the order compaction keeps them), and the changelog offset that compacted copy covers,
/// written together in one SQLite transaction. Replaying the stored records and then the
/// changelog from ``checkpoint`` gives the state a replay of the whole changelog gives.
///
/// Only committed records are written: the worker writes a batch's changelog records once its
/// transaction (or, at least once, its offsets) committed, and a restore the records it kept.
public struct PartitionStore: Sendable {
    /// The file's format; a store of another format is rebuilt.
    static let format = 1

    /// Whose state the store holds.
    public let identity: StoreIdentity
    /// The store's file.
    public let path: String
    private let database: DatabaseQueue

    /// Opens the store at `path`, creating it empty when there is no file. Throws
    /// ``StoreDoubt`` when the file is not a readable store of `identity` in this format.
    public static func open(at path: String, identity: StoreIdentity) throws(StoreDoubt) -> PartitionStore {
        do {
            var configuration = Configuration()
            // A crash of the process loses nothing SQLite committed; a power loss may lose the
            // last writes, and the checkpoint with them: the changelog has them.
            configuration.journalMode = .wal
            configuration.prepareDatabase { database in
                try database.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            let database = try DatabaseQueue(path: path, configuration: configuration)
            let store = PartitionStore(identity: identity, path: path, database: database)
            try store.prepare()
            return store
        } catch let doubt as StoreDoubt {
            throw doubt
        } catch {
            throw StoreDoubt(path: path, reason: "it cannot be read (\(error))")
        }
    }

    /// Creates the tables of a new store, or checks that an existing one is `identity`'s.
    private func prepare() throws {
        try database.write { database in
            try database.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS identity (
                        single INTEGER PRIMARY KEY CHECK (single = 1), format INTEGER NOT NULL,
                        "group" TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
                        checkpoint INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS record (
                        sequence INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, value BLOB NOT NULL, time INTEGER,
                        collapse_key BLOB, expires_at BLOB);
                    """)
            guard let row = try Row.fetchOne(database, sql: #"SELECT format, "group", topic, partition FROM identity"#)
            else {
                try database.execute(
                    sql:
                        #"INSERT INTO identity (single, format, "group", topic, partition, checkpoint) VALUES (1, ?, ?, ?, ?, 0)"#,
                    arguments: [Self.format, identity.group, identity.topic, identity.partition])
                return
            }
            let found = StoreIdentity(
                group: row["group"] ?? "", topic: row["topic"] ?? "", partition: row["partition"] ?? -1)
            let format: Int = row["format"] ?? 0
            guard format == Self.format else {
                throw StoreDoubt(path: path, reason: "it is of format \(format), not \(Self.format)")
            }
            guard found == identity else {
                throw StoreDoubt(path: path, reason: "it holds \(found), not \(identity)")
            }
        }
    }

    /// The changelog offset the stored records cover: a restore reads the changelog from here.
    public func checkpoint() throws(StoreDoubt) -> Int64 {
        do {
            guard let checkpoint = try database.read({ try Int64.fetchOne($0, sql: "SELECT checkpoint FROM identity") })
            else { throw StoreDoubt(path: path, reason: "it has no checkpoint") }
            return checkpoint
        } catch let doubt as StoreDoubt {
            throw doubt
        } catch {
            throw StoreDoubt(path: path, reason: "its checkpoint cannot be read (\(error))")
        }
    }

    /// Records stored.
    public func recordCount() throws -> Int {
        try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM record") ?? 0 }
    }

    /// Calls `body` with each stored record, in changelog order, as a record of the changelog
    /// partition at an offset before ``checkpoint()``, and the two headers the codec reads of
    /// records of 0.10; the bytes are valid only during the call. An error `body` throws stops
    /// the reading and is thrown.
    public func forEachRecord(_ body: (ChangelogRecordView, StoredHeaders) throws -> Void) throws {
        try database.read { database in
            let rows = try Row.fetchCursor(
                database, sql: "SELECT key, value, time, collapse_key, expires_at FROM record ORDER BY sequence")
            while let row = try rows.next() {
                guard let key = row.dataNoCopy(atIndex: 0), let value = row.dataNoCopy(atIndex: 1) else {
                    throw StoreDoubt(path: path, reason: "a record has no key or value")
                }
                let time: Int64? = row[2]
                try key.withUnsafeBytes { key in
                    try value.withUnsafeBytes { value in
                        try withOptionalBytes(row.dataNoCopy(atIndex: 3)) { collapseKey in
                            try withOptionalBytes(row.dataNoCopy(atIndex: 4)) { expiresAt in
                                try body(
                                    ChangelogRecordView(
                                        topic: identity.topic, partition: identity.partition, offset: -1, key: key,
                                        value: value, createTime: time),
                                    StoredHeaders(collapseKey: collapseKey, expiresAt: expiresAt))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Writes records and moves the checkpoint to `checkpoint`, atomically: `body` puts each
    /// record, in changelog order, through the writer it is given.
    public func write(through checkpoint: Int64, _ body: (inout StoreWriter) throws -> Void) throws {
        try database.write { database in
            var writer = try StoreWriter(database)
            try body(&writer)
            try database.execute(sql: "UPDATE identity SET checkpoint = ?", arguments: [checkpoint])
        }
    }
}

/// Puts records into a ``PartitionStore`` inside its write transaction.
public struct StoreWriter {
    private let put: Statement
    private let remove: Statement

    init(_ database: Database) throws {
        put = try database.cachedStatement(
            sql: "INSERT OR REPLACE INTO record (key, value, time, collapse_key, expires_at) VALUES (?, ?, ?, ?, ?)")
        remove = try database.cachedStatement(sql: "DELETE FROM record WHERE key = ?")
    }

    /// Stores a changelog record: the latest of its key, placed after every other; a tombstone
    /// (nil value) removes its key.
    public mutating func put(_ record: StoredRecord) throws {
        let key = Data(record.key)
        guard let value = record.value else {
            try remove.execute(arguments: [key])
            return
        }
        try put.execute(arguments: [
            key, Data(value), record.time, record.collapseKey.map { Data($0) }, record.expiresAt.map { Data($0) },
        ])
    }
}

/// The headers a store keeps of a record, lent for one call of
/// ``PartitionStore/forEachRecord(_:)``.
public struct StoredHeaders {
    public var collapseKey: UnsafeRawBufferPointer?
    public var expiresAt: UnsafeRawBufferPointer?

    /// The header named `name`, if the store keeps it and the record had it.
    public func value(named name: String) -> UnsafeRawBufferPointer? {
        switch name {
        case StoredRecord.collapseKeyHeader: collapseKey
        case StoredRecord.expiresAtHeader: expiresAt
        default: nil
        }
    }
}

/// Runs `body` with the bytes of `data`, or with nil.
private func withOptionalBytes<R>(_ data: Data?, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
    guard let data else { return try body(nil) }
    return try data.withUnsafeBytes { try body($0) }
}
