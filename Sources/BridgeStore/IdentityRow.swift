import GRDB

/// A store's identity row: whose state the store holds, the format it is written in, the
/// changelog offset its records cover and the changelog's topic id, with a ``RecordChecksum``
/// of them all, so that a changed checkpoint cannot make a restore skip changelog records.
struct IdentityRow: Equatable {
    var format: Int
    var identity: StoreIdentity
    var checkpoint: Int64
    /// The topic id of the changelog the records were written from; nil when the cluster gave none.
    var topicID: String?

    static let createTable = """
        CREATE TABLE IF NOT EXISTS identity (
            single INTEGER PRIMARY KEY CHECK (single = 1), format INTEGER NOT NULL,
            "group" TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL,
            checkpoint INTEGER NOT NULL, topic_id TEXT, checksum INTEGER NOT NULL);
        """

    var checksum: Int64 {
        RecordChecksum.of(
            format: Int64(format), group: identity.group, topic: identity.topic, partition: Int64(identity.partition),
            checkpoint: checkpoint, topicID: topicID)
    }

    /// The row of the store at `path`, nil when it has none yet. Throws ``StoreDoubt`` for a store
    /// of another format (its format is read before anything else of it) or a row that does not
    /// match its checksum.
    static func read(_ database: Database, path: String) throws -> IdentityRow? {
        guard let format = try Int.fetchOne(database, sql: "SELECT format FROM identity") else { return nil }
        guard format == PartitionStore.format else {
            throw StoreDoubt(path: path, reason: "it is of format \(format), not \(PartitionStore.format)")
        }
        guard
            let row = try Row.fetchOne(
                database, sql: #"SELECT "group", topic, partition, checkpoint, topic_id, checksum FROM identity"#)
        else { return nil }
        // Decoded with errors, never traps: a damaged or foreign file is a store to doubt.
        let found = IdentityRow(
            format: format,
            identity: StoreIdentity(
                group: try row.decode(String.self, atIndex: 0), topic: try row.decode(String.self, atIndex: 1),
                partition: try row.decode(Int32.self, atIndex: 2)),
            checkpoint: try row.decode(Int64.self, atIndex: 3), topicID: try row.decode(String?.self, atIndex: 4))
        guard found.checksum == (try row.decode(Int64.self, atIndex: 5)) else {
            throw StoreDoubt(
                path: path, reason: "its identity and checkpoint do not match their checksum: the file was damaged")
        }
        return found
    }

    /// Writes the row in place of the store's.
    func write(to database: Database) throws {
        try database.execute(
            sql: #"""
                INSERT OR REPLACE INTO identity (single, format, "group", topic, partition, checkpoint, topic_id, checksum)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                """#,
            arguments: [
                format, identity.group, identity.topic, identity.partition, checkpoint, topicID, checksum,
            ])
    }
}
