import BridgeCore
import CRocksDB
import DeviceQueues
import DeviceStore
import Foundation
import TestSupport
import Testing

@Suite("Device rows in RocksDB")
struct DeviceRowsTests {
    static func device(_ index: Int, waiting: Int) -> DeviceQueue {
        var device = DeviceQueue(firstSeenAt: Int64(index))
        for message in 0..<waiting {
            _ = device.send(
                QueuedMessage(
                    id: "\(index):\(message)", collapseKey: nil, sentAt: Int64(index), expiresAt: nil,
                    apns: Array(#"{"aps":{}}"#.utf8)),
                at: Int64(index), rules: QueueRules())
        }
        return device
    }

    @Test("devices and the checkpoint written together read back, after the rows are opened again")
    func writtenAndReopened() throws {
        let directory = TemporaryDirectory()
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
            #expect(try rows.checkpoint() == nil)
            try rows.write([("a", Self.device(1, waiting: 2)), ("b", Self.device(2, waiting: 0))], checkpoint: 7)
            try rows.write([("b", nil), ("c\u{1F600}", Self.device(3, waiting: 1))], checkpoint: 9)
            #expect(try rows.device("a") == Self.device(1, waiting: 2))
        }
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        #expect(try rows.checkpoint() == 9)
        #expect(try rows.device("a") == Self.device(1, waiting: 2))
        #expect(try rows.device("b") == nil)
        #expect(try rows.device("c\u{1F600}") == Self.device(3, waiting: 1))
        #expect(try rows.device("unknown") == nil)
        var scanned: [String: DeviceQueue] = [:]
        try rows.forEachDevice { token, device in scanned[token] = device }
        #expect(scanned == ["a": Self.device(1, waiting: 2), "c\u{1F600}": Self.device(3, waiting: 1)])
    }

    /// A device whose row outgrows a writer's first kilobyte: 40 messages and 50 ids awaiting `ack`.
    static let large: DeviceQueue = {
        var ids = UnacknowledgedIDs()
        for index in 0..<50 { ids.append("1:\(index):0/00ff00ff00ff00ff") }
        let waiting = (0..<40).map {
            QueuedMessage(id: "8:\($0)", collapseKey: nil, sentAt: 8, expiresAt: nil, apns: Array(#"{"aps":{}}"#.utf8))
        }
        return DeviceQueue(status: device(8, waiting: 0).status, waiting: waiting, unacknowledged: ids)
    }()

    @Test(
        "a load replaces or removes the rows of the devices it gives, in any order, and moves the checkpoint; others stay"
    )
    func loaded() throws {
        let directory = TemporaryDirectory()
        let expected = [
            "kept": Self.device(1, waiting: 1), "replaced": Self.device(4, waiting: 3), "z": Self.device(5, waiting: 2),
            "a\u{1F600}": Self.device(6, waiting: 0), "large": Self.large,
        ]
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
            try rows.write(
                [("kept", Self.device(1, waiting: 1)), ("replaced", Self.device(2, waiting: 0))], checkpoint: 3)
            try rows.load(
                [
                    ("z", Self.device(5, waiting: 2)), ("replaced", Self.device(4, waiting: 3)),
                    ("a\u{1F600}", Self.device(6, waiting: 0)), ("large", Self.large),
                ], checkpoint: 11)
        }
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        #expect(try rows.checkpoint() == 11)
        var scanned: [String: DeviceQueue] = [:]
        try rows.forEachDevice { token, device in scanned[token] = device }
        #expect(scanned == expected)
        #expect(try Self.loadFiles(in: directory.path).isEmpty)
        try rows.load([], checkpoint: 12)
        #expect(try rows.checkpoint() == 12)
        try rows.write([("written", Self.device(9, waiting: 1))], checkpoint: 13)
        try rows.load([("z", nil), ("never held", nil), ("written", nil)], checkpoint: 14)
        #expect(try rows.checkpoint() == 14)
        #expect(try rows.device("z") == nil && rows.device("written") == nil && rows.device("never held") == nil)
        scanned = [:]
        try rows.forEachDevice { token, device in scanned[token] = device }
        #expect(scanned == expected.filter { $0.key != "z" })
    }

    @Test("replacing every row keeps exactly the devices given, removes the rest, and moves the checkpoint")
    func replacedWhole() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        try rows.load((0..<50).map { ("old\($0)", Self.device($0, waiting: 1)) }, checkpoint: 5)
        try rows.write(
            [("in memtable", Self.device(60, waiting: 2)), ("kept", Self.device(61, waiting: 0))], checkpoint: 6)
        let given = [
            (token: "kept", device: Self.device(62, waiting: 3)),
            (token: "new\u{1F600}", device: Self.device(63, waiting: 1)),
            (token: "old7", device: Self.device(7, waiting: 2)),
        ]
        try rows.replaceAll(with: given, checkpoint: 9)
        #expect(try rows.checkpoint() == 9)
        var scanned: [String: DeviceQueue] = [:]
        try rows.forEachDevice { token, device in scanned[token] = device }
        #expect(scanned == Dictionary(uniqueKeysWithValues: given.map { ($0.token, $0.device) }))
        try rows.replaceAll(with: [], checkpoint: 10)
        scanned = [:]
        try rows.forEachDevice { token, device in scanned[token] = device }
        #expect(try scanned.isEmpty && rows.checkpoint() == 10)
    }

    @Test("rows opened with a memtable size keep it in the options RocksDB records")
    func writeBufferSize() throws {
        let directory = TemporaryDirectory()
        _ = try DeviceRows(at: directory.path, cacheBytes: 1 << 20, writeBufferBytes: 1 << 20)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("OPTIONS-")
        }
        let options = try files.map { try String(contentsOfFile: "\(directory.path)/\($0)", encoding: .utf8) }
        #expect(!options.isEmpty && options.allSatisfy { $0.contains("write_buffer_size=1048576") })
    }

    @Test("loads may run at once, and the table file of a load a crash cut short is deleted at the next open")
    func loadFilesOfTheirOwn() async throws {
        let directory = TemporaryDirectory()
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for load in 0..<4 {
                    group.addTask {
                        try rows.load(
                            (0..<500).map { ("t\(load)-\($0)", Self.device($0, waiting: 1)) }, checkpoint: Int64(load))
                    }
                }
                try await group.waitForAll()
            }
            for load in 0..<4 { #expect(try rows.device("t\(load)-499") == Self.device(499, waiting: 1)) }
        }
        #expect(FileManager.default.createFile(atPath: directory.path + "/load-17.sst", contents: Data([1, 2, 3])))
        _ = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        #expect(try Self.loadFiles(in: directory.path).isEmpty)
    }

    /// The table files of loads in `directory`.
    static func loadFiles(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("load-") }
    }

    @Test("a load that gives a token twice fails, naming the directory, and leaves the rows as they were")
    func loadRefused() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        try rows.write([("kept", Self.device(1, waiting: 1))], checkpoint: 3)
        #expect {
            try rows.load(
                [
                    ("x", Self.device(2, waiting: 0)), ("y", Self.device(3, waiting: 0)),
                    ("x", Self.device(4, waiting: 0)),
                ],
                checkpoint: 9)
        } throws: { error in
            "\(error)".contains(directory.path) && "\(error)".contains("load failed")
        }
        #expect(try rows.checkpoint() == 3)
        #expect(try rows.device("x") == nil && rows.device("y") == nil)
        #expect(try rows.device("kept") == Self.device(1, waiting: 1))
        #expect(try Self.loadFiles(in: directory.path).isEmpty)
    }

    @Test("the rows of one directory open once at a time: a second open fails, naming the directory")
    func openedOnce() throws {
        let directory = TemporaryDirectory()
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 0)
            #expect {
                _ = try DeviceRows(at: directory.path, cacheBytes: 0)
            } throws: { error in
                "\(error)".contains(directory.path) && "\(error)".contains("open failed")
            }
            try rows.write([], checkpoint: 1)
        }
        #expect(try DeviceRows(at: directory.path, cacheBytes: 0).checkpoint() == 1)
    }

    @Test("a stored row or checkpoint that does not read is an error naming the directory, never a device")
    func damaged() throws {
        let directory = TemporaryDirectory()
        try DeviceRows(at: directory.path, cacheBytes: 0).write([("a", Self.device(1, waiting: 1))], checkpoint: 3)
        try Self.put("da", [1, 2, 3], checkpoint: [1, 2], in: directory.path)
        let rows = try DeviceRows(at: directory.path, cacheBytes: 0)
        for read in [
            { _ = try rows.device("a") }, { try rows.forEachDevice { _, _ in } }, { _ = try rows.checkpoint() },
        ] {
            #expect {
                try read()
            } throws: { error in
                "\(error)".contains(directory.path)
            }
        }
    }

    @Test("a scan reads the device rows only, whatever else the database holds after them")
    func scanEndsWithTheDevices() throws {
        let directory = TemporaryDirectory()
        try DeviceRows(at: directory.path, cacheBytes: 0).write([("a", Self.device(1, waiting: 0))], checkpoint: 3)
        try Self.put("ex", [0xFF], checkpoint: nil, in: directory.path)
        var scanned: [String] = []
        try DeviceRows(at: directory.path, cacheBytes: 0).forEachDevice { token, _ in scanned.append(token) }
        #expect(scanned == ["a"])
    }

    /// Stores `value` under `key` (and `checkpoint`'s bytes under the checkpoint's key) with
    /// RocksDB's C API, as another program could.
    static func put(_ key: String, _ value: [UInt8], checkpoint: [UInt8]?, in path: String) throws {
        let options = rocksdb_options_create()
        defer { rocksdb_options_destroy(options) }
        var error: UnsafeMutablePointer<CChar>?
        let database = try #require(rocksdb_open(options, path, &error))
        defer { rocksdb_close(database) }
        let writeOptions = rocksdb_writeoptions_create()
        defer { rocksdb_writeoptions_destroy(writeOptions) }
        var entries = [(Array(key.utf8), value)]
        if let checkpoint { entries.append((Array("checkpoint".utf8), checkpoint)) }
        for (key, value) in entries {
            key.withUnsafeBytes { key in
                value.withUnsafeBytes { value in
                    rocksdb_put(
                        database, writeOptions, key.baseAddress, key.count, value.baseAddress, value.count, &error)
                }
            }
        }
        #expect(error == nil)
    }
}
