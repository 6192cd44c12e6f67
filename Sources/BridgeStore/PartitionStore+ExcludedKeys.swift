import BridgeCore
import GRDB

/// Reading the records whose keys do not start with given bytes (the kinds a caller does not
/// need), in two ways: through the index of keys, which reads none of the others, for the few
/// records a caller needs of a store that holds many it does not; and in the store's order,
/// which steps over the others without returning them, in parts, for a store most of whose
/// records a caller needs.
extension PartitionStore {
    /// ``forEachRecord(_:)`` for the records whose keys do not start with one of `excluded`,
    /// found through the index of keys.
    public func forEachRecord(
        excludingKeysStartingWith excluded: [UInt8], _ body: (ChangelogRecordView, StoredHeaders) throws -> Void
    ) throws {
        var cursor = StoreCursor()
        try forEachRecord(after: &cursor, limit: .max, in: Self.records(excludingKeysStartingWith: excluded), body)
    }

    /// ``forEachRecord(after:limit:_:)`` for the records whose keys do not start with one of
    /// `excluded`: every record is stepped over in the store's order, the others passed over by
    /// SQLite on their key's first byte.
    public func forEachRecord(
        after cursor: inout StoreCursor, limit: Int, excludingKeysStartingWith excluded: [UInt8],
        _ body: (ChangelogRecordView, StoredHeaders) throws -> Void
    ) throws {
        let table = Self.scannedRecords(excludingKeysStartingWith: excluded)
        try forEachRecord(after: &cursor, limit: limit, in: table, body)
    }

    /// How many records have keys that do not start with one of `excluded`, counted in the index
    /// of keys up to `limit`: at most `limit` entries of the index are read.
    public func recordCount(excludingKeysStartingWith excluded: [UInt8], upTo limit: Int) throws -> Int {
        let found = Self.records(excludingKeysStartingWith: excluded, selecting: "sequence")
        return try database.read { database in
            try Int.fetchOne(
                database, sql: "SELECT count(*) FROM (SELECT 1 FROM \(found) LIMIT ?)", arguments: [max(0, limit)])
                ?? 0
        }
    }

    /// The index SQLite makes for the unique `key` of the records, by the name it gives it.
    private static let keyIndex = "sqlite_autoindex_record_1"

    /// The records whose keys do not start with a byte of `excluded`, as an SQL table: a range of
    /// keys for each gap between those bytes, each read through the index of keys. `selecting`
    /// only `sequence`, the index alone is read. With nothing excluded, the table of records,
    /// whatever `selecting` says.
    static func records(excludingKeysStartingWith excluded: [UInt8], selecting columns: String = "*") -> String {
        // An empty key starts with no byte: it is never excluded.
        var ranges: [String] = ["key = X''"]
        var start: UInt8? = 0
        for byte in Set(excluded).sorted() {
            if let start, start < byte {
                ranges.append(
                    start == 0
                        ? "key > X'' AND key < \(hexLiteral(byte))"
                        : "key >= \(hexLiteral(start)) AND key < \(hexLiteral(byte))")
            }
            start = byte == .max ? nil : byte + 1
        }
        if start == 0 { return "record" }
        if let start { ranges.append("key >= \(hexLiteral(start))") }
        // Named, or SQLite reads a range open at one end by scanning the table in its order.
        let selects = ranges.map { "SELECT \(columns) FROM record INDEXED BY \(keyIndex) WHERE \($0)" }
        return "(" + selects.joined(separator: " UNION ALL ") + ")"
    }

    /// The records whose keys do not start with a byte of `excluded`, as an SQL table that
    /// SQLite reads in the store's order, comparing each key's first byte.
    static func scannedRecords(excludingKeysStartingWith excluded: [UInt8]) -> String {
        guard !excluded.isEmpty else { return "record" }
        let bytes = Set(excluded).sorted().map(hexLiteral).joined(separator: ", ")
        // An empty key starts with no byte (its substr is NULL): it is never excluded.
        return "(SELECT * FROM record WHERE key = X'' OR substr(key, 1, 1) NOT IN (\(bytes)))"
    }

    private static func hexLiteral(_ byte: UInt8) -> String {
        "X'" + (byte < 16 ? "0" : "") + String(byte, radix: 16) + "'"
    }
}
