import BridgeCore
import BridgeStore
import Foundation
import Logging
import PropertyBased
import TestSupport
import Testing

/// A partition's store, replayed, and then the changelog after its checkpoint, give the state a
/// replay of the whole changelog gives: for the upgrade fixture's changelog (devices with
/// waiting messages, an `ack` awaited, memberships, a fan-out in the middle of its walk), cut
/// anywhere.
@Suite("A store and the changelog's tail restore the whole changelog")
struct StoreReplayTests {
    static let codec = ChangelogCodec(topic: "changelog")
    static let logger = Logger(label: "test")

    /// Replays `records` onto `states`, which holds every partition among them.
    static func replay(_ records: some Sequence<FixtureRecord>, onto states: inout DeviceStates) throws {
        for record in records {
            states.restore(try codec.decode(record.record(topic: codec.topic)), in: record.partition)
        }
    }

    @Test("stored in several writes, reopened, and the rest replayed", arguments: [0.0, 0.01, 0.25, 0.5, 0.9, 1.0])
    func cutAnywhere(fraction: Double) throws {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let cut = Int(Double(records.count) * fraction)
        var whole = DeviceStates()
        for partition in partitions { whole.adopt(partition) }
        try Self.replay(records, onto: &whole)

        let files = StoreFiles()
        do {
            var directory = try files.directory()
            for partition in partitions { _ = try directory.open(partition, logger: Self.logger) }
            for start in stride(from: 0, to: cut, by: 97) {
                let end = min(start + 97, cut)
                var batch = StoreBatch()
                for record in records[start..<end] { batch.append(record) }
                batch.checkpoints = Dictionary(uniqueKeysWithValues: partitions.map { ($0, Int64(end)) })
                directory.hold(batch)
                try directory.takeUnwritten()?.run()
            }
        }
        var directory = try files.directory()
        var restored = DeviceStates()
        for partition in partitions {
            restored.adopt(partition)
            let store = try directory.open(partition, logger: Self.logger)
            #expect(try store.checkpoint() == (cut == 0 ? 0 : Int64(cut)))
            // In parts of 13, as a restore reads a store in parts.
            var cursor = StoreCursor()
            while !cursor.isAtEnd {
                try store.forEachRecord(after: &cursor, limit: 13) { record, headers in
                    restored.restore(try Self.codec.decode(record, header: headers.value(named:)), in: partition)
                }
            }
            #expect(cursor.count == (try store.recordCount()))
        }
        try Self.replay(records[cut...], onto: &restored)
        let same = restored == whole
        #expect(same, "the store and the tail restore what the whole changelog restores")
        #expect(restored.topics.fanOutsInProgress == (1, 1))
    }

    /// Records of partition 0: three keys, one written again, and a tombstone.
    static let rewrites: [(String, String?)] = [("a", "1"), ("b", "1"), ("c", "1"), ("a", "2"), ("b", nil)]

    /// Each record of `store` as "key=value", in the store's order.
    static func stored(in store: PartitionStore) throws -> [String] {
        var stored: [String] = []
        try store.forEachRecord { record, _ in stored.append(shown(record)) }
        return stored
    }

    /// `record` as "key=value".
    static func shown(_ record: ChangelogRecordView) -> String {
        String(decoding: record.key ?? UnsafeRawBufferPointer(start: nil, count: 0), as: UTF8.self) + "="
            + String(decoding: record.value ?? UnsafeRawBufferPointer(start: nil, count: 0), as: UTF8.self)
    }

    @Test(
        "records whose keys start with bytes excluded are passed over, through the index or in parts in the store's order; the others come in the store's order, and are counted up to a limit"
    )
    func excludingKeys() async throws {
        // Keys that are empty or start with 0x00, letters either side of those excluded, or
        // 0xF4; the bytes excluded include the ends of the range.
        let firsts = ["", "\u{0}", "a", "c", "d", "e", "m", "t", "\u{10FFFF}"]
        let bytes: [UInt8] = [0x00, 0x61, 0x64, 0x6D, 0x74, 0xF4, 0xFF]
        let drawn = zip(Gen.int(in: 0...(firsts.count - 1)), Gen.int(in: 0...3), Gen.bool)
        let excludes = Gen.bool.array(of: bytes.count...bytes.count)
        let shapes = zip(Gen.int(in: 1...5), Gen.int(in: 0...40))
        await propertyCheck(count: 100, input: zip(drawn.array(of: 0...30), excludes, shapes)) {
            records, excludes, shape in
            let (part, countLimit) = shape
            let files = StoreFiles()
            var directory = try files.directory()
            let store = try directory.open(0, logger: Self.logger)
            let keyed = records.map { ("\(firsts[$0.0])" + ($0.1 == 0 ? "" : "k\($0.1)"), $0.2 ? nil : "v") }
            directory.hold(StoreBatch(keyed, checkpoint: 5))
            try directory.takeUnwritten()?.run()
            // Every byte excluded leaves the empty key only.
            for excluded in [zip(bytes, excludes).filter(\.1).map(\.0), Array(0...255)] {
                var passed: [String] = []
                try store.forEachRecord(excludingKeysStartingWith: excluded) { record, _ in
                    passed.append(Self.shown(record))
                }
                var scanned: [String] = []
                var cursor = StoreCursor()
                while !cursor.isAtEnd {
                    try store.forEachRecord(after: &cursor, limit: part, excludingKeysStartingWith: excluded) {
                        record, _ in scanned.append(Self.shown(record))
                    }
                }
                let expected = try Self.stored(in: store).filter { stored in
                    let first = stored.split(separator: "=", omittingEmptySubsequences: false)[0].utf8.first
                    return first.map { !excluded.contains($0) } ?? true
                }
                #expect(passed == expected, "excluding \(excluded)")
                #expect(scanned == expected, "excluding \(excluded), in parts of \(part)")
                let counted = try store.recordCount(excludingKeysStartingWith: excluded, upTo: countLimit)
                #expect(counted == min(expected.count, countLimit), "excluding \(excluded), up to \(countLimit)")
            }
        }
    }

    @Test("a key written again moves behind the others, as compaction keeps it; a tombstone removes it")
    func latestOfEachKeyInOrder() throws {
        let files = StoreFiles()
        var directory = try files.directory()
        let store = try directory.open(0, logger: Self.logger)
        directory.hold(StoreBatch(Self.rewrites, checkpoint: 5))
        try directory.takeUnwritten()?.run()
        #expect(try Self.stored(in: store) == ["c=1", "a=2"])
        #expect(try store.checkpoint() == 5)
    }

    @Test("records written as one batch leave the store as each written alone, in turn, does")
    func oneWriteAsEachInTurn() async throws {
        // Keys of two partitions drawn from a few, so that most are written again; a third tombstones.
        let record = zip(Gen.int(in: 0...5), Gen.int(in: 0...1), Gen.int(in: 0...2))
        await propertyCheck(count: 100, input: record.array(of: 0...40)) { drawn in
            let records = drawn.enumerated().map { index, draw in
                (key: "k\(draw.0)", value: draw.2 == 0 ? nil : "v\(index)", partition: Int32(draw.1))
            }
            func stores(writtenInTurn: Bool) throws -> [[String]] {
                let files = StoreFiles()
                var directory = try files.directory()
                let stores = try [0, 1].map { try directory.open($0, logger: Self.logger) }
                var batch = StoreBatch()
                for (index, record) in records.enumerated() {
                    batch.append(record.key, record.value, partition: record.partition)
                    batch.checkpoints[record.partition] = Int64(index + 1)
                    guard writtenInTurn else { continue }
                    directory.hold(batch)
                    try directory.takeUnwritten()?.run()
                    batch = StoreBatch()
                }
                directory.hold(batch)
                try directory.takeUnwritten()?.run()
                return try stores.map { try Self.stored(in: $0) }
            }
            let inTurn = try stores(writtenInTurn: true)
            #expect(try stores(writtenInTurn: false) == inTurn, "\(records)")
        }
    }

    @Test("two batches gathered into one write what they write in turn", arguments: 0...5)
    func gathered(split: Int) throws {
        let files = StoreFiles()
        var directory = try files.directory()
        let store = try directory.open(0, logger: Self.logger)
        var first = StoreBatch()
        var second = StoreBatch()
        for (key, value) in Self.rewrites[..<split] { first.append(key, value) }
        for (key, value) in Self.rewrites[split...] { second.append(key, value) }
        first.checkpoints = [0: Int64(split)]
        second.checkpoints = split < Self.rewrites.count ? [0: Int64(Self.rewrites.count)] : [:]
        first.append(contentsOf: second)
        directory.hold(first)
        try directory.takeUnwritten()?.run()
        #expect(try Self.stored(in: store) == ["c=1", "a=2"])
        #expect(try store.checkpoint() == 5)
    }
}
