import BridgeCore
import GRDB
import GRDBSQLite

/// One state partition's local store: its changelog, compacted (the latest record of each key,
/// in the order compaction keeps them), and the changelog offset that compacted copy covers,
/// written together in one SQLite transaction. Replaying the stored records and then the
/// changelog from ``checkpoint`` gives the state a replay of the whole changelog gives.
///
/// Only committed records are written: the worker writes a batch's changelog records once its
/// transaction (or, at least once, its offsets) committed, and a restore the records it kept.
public struct PartitionStore: Sendable {
    /// The file's format; a store of another format is rebuilt. Format 3 keeps a
    /// ``RecordChecksum`` of each record and of the identity row, and the changelog's topic id.
    static let format = 3

    /// Whose state the store holds.
    public let identity: StoreIdentity
    /// The store's file.
    public let path: String
    let database: DatabaseQueue
    /// The topic id of the changelog its records were written from; nil when none is known.
    private let changelogID: String?

    /// Opens the store at `path`, creating it empty when there is no file. Throws
    /// ``StoreDoubt`` when the file is not a readable store of `identity` in this format, or was
    /// written from another incarnation of the changelog: `changelogID` is the changelog topic's
    /// id (KIP-516) when the cluster gives one. A store that knows none adopts it while it
    /// covers nothing, and is a doubt otherwise.
    public static func open(at path: String, identity: StoreIdentity, changelogID: String?) throws(StoreDoubt)
        -> PartitionStore
    {
        do {
            var configuration = Configuration()
            // A crash of the process loses nothing SQLite committed; a power loss may lose the
            // last writes, and the checkpoint with them: the changelog has them.
            configuration.journalMode = .wal
            configuration.prepareDatabase { database in
                // Records of a few hundred bytes: larger pages and checkpoints far apart write
                // 1.5x as many of them a second here as SQLite's defaults (BENCHMARKS.md). The
                // page size takes effect on a new file only.
                try database.execute(
                    sql: "PRAGMA page_size = 16384; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 10000")
            }
            let database = try DatabaseQueue(path: path, configuration: configuration)
            let stored = try prepare(database, at: path, identity: identity, changelogID: changelogID)
            return PartitionStore(identity: identity, path: path, database: database, changelogID: stored)
        } catch let doubt as StoreDoubt {
            throw doubt
        } catch {
            throw StoreDoubt(path: path, reason: "it cannot be read (\(error))")
        }
    }

    /// Creates the tables of a new store, or checks that an existing one is `identity`'s, of the
    /// changelog `changelogID` names. A store that knows no id adopts it only while it covers
    /// nothing: records written without an id cannot be told from those of a changelog deleted
    /// and created since. Returns the id the store keeps.
    private static func prepare(
        _ database: DatabaseQueue, at path: String, identity: StoreIdentity, changelogID: String?
    ) throws -> String? {
        try database.write { database in
            try database.execute(
                sql: IdentityRow.createTable
                    + """
                    CREATE TABLE IF NOT EXISTS record (
                        sequence INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, value BLOB NOT NULL, time INTEGER,
                        collapse_key BLOB, expires_at BLOB, checksum INTEGER NOT NULL);
                    """)
            guard var row = try IdentityRow.read(database, path: path) else {
                try IdentityRow(format: format, identity: identity, checkpoint: 0, topicID: changelogID)
                    .write(to: database)
                return changelogID
            }
            guard row.identity == identity else {
                throw StoreDoubt(path: path, reason: "it holds \(row.identity), not \(identity)")
            }
            guard let changelogID, row.topicID != changelogID else { return row.topicID }
            if let stored = row.topicID {
                // Read from the file: shown bounded and printable.
                let shown = String(
                    stored.unicodeScalars.prefix(64).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
                throw StoreDoubt(
                    path: path,
                    reason:
                        "it was written from another incarnation of the changelog (topic id \(shown), now \(changelogID)): the topic was deleted and created again"
                )
            }
            guard row.checkpoint == 0 else {
                throw StoreDoubt(
                    path: path,
                    reason:
                        "it was written without the changelog's topic id (now \(changelogID)): it cannot be told from a changelog deleted and created again since"
                )
            }
            row.topicID = changelogID
            try row.write(to: database)
            return changelogID
        }
    }

    /// The changelog offset the stored records cover: a restore reads the changelog from here.
    /// Throws ``StoreDoubt`` for a checkpoint that cannot be (negative, or none with records) or
    /// that does not match its checksum.
    public func checkpoint() throws(StoreDoubt) -> Int64 {
        do {
            let (row, hasRecords) = try database.read { database in
                (
                    try IdentityRow.read(database, path: path),
                    try Bool.fetchOne(database, sql: "SELECT EXISTS (SELECT 1 FROM record)") ?? false
                )
            }
            guard let checkpoint = row?.checkpoint else { throw StoreDoubt(path: path, reason: "it has no checkpoint") }
            guard checkpoint > 0 || (checkpoint == 0 && !hasRecords) else {
                throw StoreDoubt(path: path, reason: "its checkpoint \(checkpoint) does not cover its records")
            }
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
    /// records of 0.10; the bytes are SQLite's, valid only during the call. An error `body`
    /// throws stops the reading and is thrown; a record whose bytes no longer match its
    /// checksum throws ``StoreDoubt`` before `body` sees it.
    public func forEachRecord(_ body: (ChangelogRecordView, StoredHeaders) throws -> Void) throws {
        var cursor = StoreCursor()
        try forEachRecord(after: &cursor, limit: .max, body)
    }

    /// ``forEachRecord(_:)`` from where `cursor` is to at most `limit` records (at least one),
    /// the cursor moved past them: a store read in parts, each its own read (nothing writes the
    /// store meanwhile).
    public func forEachRecord(
        after cursor: inout StoreCursor, limit: Int, _ body: (ChangelogRecordView, StoredHeaders) throws -> Void
    ) throws {
        try forEachRecord(after: &cursor, limit: limit, in: "record", body)
    }

    /// ``forEachRecord(after:limit:_:)`` of the records of `table`, an SQL table of `record`'s rows.
    func forEachRecord(
        after cursor: inout StoreCursor, limit: Int, in table: String,
        _ body: (ChangelogRecordView, StoredHeaders) throws -> Void
    ) throws {
        let limit = max(1, limit)
        try database.read { database in
            // Kept alive while its SQLite statement is stepped: releasing it finalizes that.
            let columns = "SELECT key, value, time, collapse_key, expires_at, checksum, sequence FROM \(table)"
            let prepared = try database.makeStatement(
                sql: columns + (cursor.sequence == nil ? "" : " WHERE sequence > ?2") + " ORDER BY sequence LIMIT ?1")
            defer { withExtendedLifetime(prepared) {} }
            let statement = prepared.sqliteStatement
            sqlite3_bind_int64(statement, 1, Int64(clamping: limit))
            if let sequence = cursor.sequence { sqlite3_bind_int64(statement, 2, sequence) }
            var read = 0
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE {
                    cursor.isAtEnd = read < limit
                    return
                }
                guard code == SQLITE_ROW else {
                    let failure = DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: database.lastErrorMessage)
                    let place = cursor.sequence.map { "the record after sequence \($0)" } ?? "the first record"
                    throw StoreDoubt(path: path, reason: "\(place) cannot be read (\(failure))")
                }
                guard let key = Self.blob(statement, 0), let value = Self.blob(statement, 1) else {
                    throw StoreDoubt(path: path, reason: "a record has no key or value")
                }
                let time = sqlite3_column_type(statement, 2) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 2)
                let headers = StoredHeaders(collapseKey: Self.blob(statement, 3), expiresAt: Self.blob(statement, 4))
                read += 1
                cursor.count += 1
                let sequence = sqlite3_column_int64(statement, 6)
                cursor.sequence = sequence
                let checksum = RecordChecksum.of(
                    key: key, value: value, time: time, collapseKey: headers.collapseKey, expiresAt: headers.expiresAt)
                guard checksum == sqlite3_column_int64(statement, 5) else {
                    throw StoreDoubt(
                        path: path,
                        reason: "the record at sequence \(sequence) does not match its checksum: the file was damaged"
                    )
                }
                try body(
                    ChangelogRecordView(
                        topic: identity.topic, partition: identity.partition, offset: -1, key: key, value: value,
                        createTime: time),
                    headers)
            }
        }
    }

    /// The blob in column `column` of the row `statement` is on, read in place; nil for NULL.
    private static func blob(_ statement: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        // Zero bytes come back as a null pointer: an empty buffer, not a missing one.
        return UnsafeRawBufferPointer(
            start: sqlite3_column_blob(statement, column), count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// Writes records and moves the checkpoint to `checkpoint`, atomically: `body` puts each
    /// record, in changelog order, through the writer it is given.
    public func write(through checkpoint: Int64, _ body: (inout StoreWriter) throws -> Void) throws {
        try database.write { database in
            var writer = try StoreWriter(database)
            try body(&writer)
            try IdentityRow(format: Self.format, identity: identity, checkpoint: checkpoint, topicID: changelogID)
                .write(to: database)
        }
    }
}

/// The headers a store keeps of a record, lent for one call of
/// ``PartitionStore/forEachRecord(_:)``.
public struct StoredHeaders {
    /// The `collapse-key` header's value, if the record had one.
    public var collapseKey: UnsafeRawBufferPointer?
    /// The `expires-at` header's value, if the record had one.
    public var expiresAt: UnsafeRawBufferPointer?

    /// The names of the headers a store keeps.
    public static let collapseKeyHeader = "collapse-key"
    /// See ``collapseKeyHeader``.
    public static let expiresAtHeader = "expires-at"

    /// The header named `name`, if the store keeps it and the record had it.
    public func value(named name: String) -> UnsafeRawBufferPointer? {
        switch name {
        case Self.collapseKeyHeader: collapseKey
        case Self.expiresAtHeader: expiresAt
        default: nil
        }
    }
}
