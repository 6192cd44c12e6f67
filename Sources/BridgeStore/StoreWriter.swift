import GRDB
import GRDBSQLite

/// Puts records into a ``PartitionStore`` inside its write transaction, binding each record's
/// bytes where they lie (SQLite copies them as it steps).
public struct StoreWriter {
    private let put: Statement
    private let remove: Statement
    private let database: Database

    init(_ database: Database) throws {
        self.database = database
        put = try database.cachedStatement(
            sql:
                "INSERT OR REPLACE INTO record (key, value, time, collapse_key, expires_at, checksum) VALUES (?, ?, ?, ?, ?, ?)"
        )
        remove = try database.cachedStatement(sql: "DELETE FROM record WHERE key = ?")
    }

    /// Stores a changelog record, with its ``RecordChecksum``: the latest of its key, placed
    /// after every other; a tombstone (nil `value`) removes its key.
    public mutating func put(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?, time: Int64?,
        collapseKey: UnsafeRawBufferPointer? = nil, expiresAt: UnsafeRawBufferPointer? = nil
    ) throws {
        guard let value else {
            let statement = remove.sqliteStatement
            bind(key, at: 1, of: statement)
            return try step(statement)
        }
        let statement = put.sqliteStatement
        bind(key, at: 1, of: statement)
        bind(value, at: 2, of: statement)
        if let time { sqlite3_bind_int64(statement, 3, time) } else { sqlite3_bind_null(statement, 3) }
        bind(collapseKey, at: 4, of: statement)
        bind(expiresAt, at: 5, of: statement)
        sqlite3_bind_int64(
            statement, 6,
            RecordChecksum.of(key: key, value: value, time: time, collapseKey: collapseKey, expiresAt: expiresAt))
        try step(statement)
    }

    /// Binds `bytes` as a blob (an empty one for empty bytes), or NULL for nil. The bytes must
    /// stay valid until the statement has stepped.
    private func bind(_ bytes: UnsafeRawBufferPointer?, at index: Int32, of statement: SQLiteStatement) {
        guard let bytes else {
            sqlite3_bind_null(statement, index)
            return
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            sqlite3_bind_zeroblob(statement, index, 0)
            return
        }
        // A nil destructor is SQLITE_STATIC: SQLite reads the bytes in place.
        sqlite3_bind_blob(statement, index, base, Int32(bytes.count), nil)
    }

    private func step(_ statement: SQLiteStatement) throws {
        let code = sqlite3_step(statement)
        let failure =
            code == SQLITE_DONE
            ? nil : DatabaseError(resultCode: ResultCode(rawValue: code), message: database.lastErrorMessage)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        if let failure { throw failure }
    }
}
