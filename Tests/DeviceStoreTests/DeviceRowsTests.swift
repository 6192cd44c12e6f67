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
        try rows.load([] as [DeviceRowUpdate], checkpoint: 12)
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

    @Test("a replacement that fails once the old rows are gone leaves no checkpoint: the rows are rebuilt, not trusted")
    func replacementCutShort() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        try rows.replaceAll(with: [("a", Self.device(1, waiting: 1))], checkpoint: 5)
        #expect(try rows.checkpoint() == 5)
        // A token given twice fails the load, after the old rows were removed.
        #expect(throws: DeviceStoreError.self) {
            try rows.replaceAll(
                with: [("b", Self.device(2, waiting: 0)), ("b", Self.device(2, waiting: 0))], checkpoint: 6)
        }
        #expect(try rows.checkpoint() == nil && rows.counts() == nil)
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
            try rows.write([] as [DeviceRowUpdate], checkpoint: 1)
        }
        #expect(try DeviceRows(at: directory.path, cacheBytes: 0).checkpoint() == 1)
    }

    @Test("a stored row or checkpoint that does not read is an error naming the directory, never a device")
    func damaged() throws {
        let directory = TemporaryDirectory()
        try DeviceRows(at: directory.path, cacheBytes: 0).write([("a", Self.device(1, waiting: 1))], checkpoint: 3)
        try Self.put(Self.key("a"), [1, 2, 3], checkpoint: [1, 2], in: directory.path)
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
        try Self.put(Array("ex".utf8), [0xFF], checkpoint: nil, in: directory.path)
        var scanned: [String] = []
        try DeviceRows(at: directory.path, cacheBytes: 0).forEachDevice { token, _ in scanned.append(token) }
        #expect(scanned == ["a"])
    }

    /// The key of `token`'s head row: `d`, the token's length (32 bits, big-endian), the token.
    static func key(_ token: String) -> [UInt8] {
        [UInt8(ascii: "d"), 0, 0, 0, UInt8(token.utf8.count)] + Array(token.utf8)
    }

    @Test("rows of an earlier layout are refused at open, naming the directory; empty ones take this layout")
    func earlierLayout() throws {
        let directory = TemporaryDirectory()
        // A row of the first layout: a device's whole state under `d` and its token.
        try Self.put(Array("dtoken".utf8), [1], checkpoint: Array(repeating: 0, count: 8), in: directory.path)
        #expect {
            _ = try DeviceRows(at: directory.path, cacheBytes: 0)
        } throws: { error in
            "\(error)".contains(directory.path) && "\(error)".contains("an earlier layout")
        }
        let empty = TemporaryDirectory()
        try Self.put(Array("layout".utf8), [4], checkpoint: nil, in: empty.path)
        _ = try DeviceRows(at: empty.path, cacheBytes: 0)
        // The second layout held no member rows, the third no member counts; the fifth is a
        // later version's.
        for layout: UInt8 in [2, 3, 5] {
            try Self.put(Array("layout".utf8), [layout], checkpoint: nil, in: empty.path)
            #expect {
                _ = try DeviceRows(at: empty.path, cacheBytes: 0)
            } throws: { error in
                "\(error)".contains("layout [\(layout)]")
            }
        }
    }

    @Test("rows flushed leave no log to replay at the next open: their memtables are on disk")
    func flushedWithoutLog() throws {
        let directory = TemporaryDirectory()
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
            let members = (0..<10_000).map { MemberRowChange(topic: "news", token: "token-\($0)", isMember: true) }
            try rows.write([], members: members, checkpoint: 1)
            #expect(try rows.flush())
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let logBytes = try files.filter { $0.hasSuffix(".log") }.reduce(0) { sum, file in
            let size = try FileManager.default.attributesOfItem(atPath: "\(directory.path)/\(file)")[.size] as? Int
            return sum + (size ?? 0)
        }
        #expect(logBytes < 1_024, "\(files)")
        #expect(try DeviceRows(at: directory.path, cacheBytes: 1 << 20).members()["news"]?.count == 10_000)
    }

    @Test("a write that names some messages writes their rows only: the others' stay as they were")
    func namedMessagesOnly() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        var device = Self.device(1, waiting: 2)
        try rows.write([("t", device)], checkpoint: 1)
        let output = device.send(
            QueuedMessage(id: "new", collapseKey: nil, sentAt: 2, expiresAt: nil, apns: Array(#"{"aps":{}}"#.utf8)),
            at: 2, rules: QueueRules())
        #expect(output.changes.count == 1)
        try rows.write([DeviceRowUpdate(token: "t", device: device, messages: .named(["new"]))], checkpoint: 2)
        #expect(try rows.device("t") == device)
        // The same device, its first message's payload changed in memory only: not named, not written.
        let first = device.waiting[0]
        let changed = QueuedMessage(
            id: first.id, collapseKey: nil, sentAt: first.sentAt, expiresAt: nil, apns: Array(#"{"aps":{"x":1}}"#.utf8))
        let edited = DeviceQueue(
            status: device.status, waiting: [changed] + device.waiting.dropFirst(),
            unacknowledged: device.unacknowledged)
        try rows.write([DeviceRowUpdate(token: "t", device: edited, messages: .named([]))], checkpoint: 3)
        #expect(try rows.device("t") == device)
        try rows.write([DeviceRowUpdate(token: "t", device: edited, messages: .named([first.id]))], checkpoint: 4)
        #expect(try rows.device("t") == edited)
    }

    @Test(
        "tokens that start alike, or hold a 0 byte or an `m`, keep their rows apart; a device removed whole leaves no row"
    )
    func tokensApart() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
        let tokens = ["t", "tm", "t\u{0}", "t\u{0}m", "", "m", "\u{FF}"]
        let devices = Dictionary(
            uniqueKeysWithValues: tokens.enumerated().map { ($1, Self.device($0, waiting: $0 % 3 + 1)) })
        try rows.write(devices.map { ($0.key, $0.value) }, checkpoint: 1)
        var scanned: [String: DeviceQueue] = [:]
        try rows.forEachDevice { scanned[$0] = $1 }
        #expect(scanned == devices)
        for token in tokens { #expect(try rows.device(token) == devices[token], "\(token)") }
        try rows.write([("t", nil), ("tm", Self.device(9, waiting: 0))], checkpoint: 2)
        scanned = [:]
        try rows.forEachDevice { scanned[$0] = $1 }
        var expected = devices
        expected["t"] = nil
        expected["tm"] = Self.device(9, waiting: 0)
        #expect(scanned == expected)
    }

    @Test(
        "devices read together are those the rows hold under the tokens asked, whatever their order, repeats and misses"
    )
    func devicesReadTogether() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 0)
        let written = Dictionary(
            uniqueKeysWithValues: (0..<40).map { ("token-\($0)", Self.device($0, waiting: $0 % 4)) })
        try rows.write(written.map { ($0.key, $0.value) }, checkpoint: 1)
        try rows.write([("token-3", nil)], checkpoint: 2)
        let cases: [[String]] = [
            [],
            ["token-0"],
            ["token-3"],
            ["token-39", "token-1", "unknown", "token-1", "token-3", "token-22"],
            (0..<50).map { "token-\($0)" }.reversed(),
        ]
        for tokens in cases {
            let expected = written.filter { tokens.contains($0.key) && $0.key != "token-3" }
            #expect(try rows.devices(tokens) == expected, "\(tokens)")
        }
    }

    @Test("the idle tokens are those of devices with nothing waiting, no notice due, and no activity for the limit")
    func idleTokens() throws {
        let directory = TemporaryDirectory()
        let rows = try DeviceRows(at: directory.path, cacheBytes: 0)
        let limit = QueueRules().inactiveAfter
        let noticeDue = DeviceQueue(
            status: DeviceStatus(
                isOnline: false, lastActivity: 0, pendingNotice: DeletionNotice(reason: .tooManyPending, count: 1)))
        try rows.write(
            [
                ("quiet", DeviceQueue(firstSeenAt: 0)), ("waiting", Self.device(0, waiting: 1)),
                ("recent", DeviceQueue(firstSeenAt: limit)), ("notice", noticeDue),
                ("quiet too", DeviceQueue(firstSeenAt: 1)),
            ], checkpoint: 1)
        #expect(try rows.idleTokens(at: limit + 2, rules: QueueRules()) == ["quiet", "quiet too"])
        #expect(try rows.idleTokens(at: limit, rules: QueueRules()) == [])
    }

    @Test(
        "a head listing a message not stored is an error; a message row its head does not list is read past by a device's read and refused by a scan"
    )
    func messagesWithoutTheirDevice() throws {
        let directory = TemporaryDirectory()
        let written = Self.device(1, waiting: 2)
        try DeviceRows(at: directory.path, cacheBytes: 0).write(
            [("a", Self.device(1, waiting: 1)), ("c", written)], checkpoint: 3)
        // A message of device "b", which has no head row, and one more under "a" than its head lists.
        let row =
            [UInt8](repeating: 0, count: 8)
            + Array(
                #"{"apns":{"aps":{}},"kind":"message","expires_at":null,"collapse_key":null}"#.utf8)
        try Self.put(Self.key("a") + Array("mextra".utf8), row, checkpoint: nil, in: directory.path)
        try Self.put(Self.key("b") + Array("mx".utf8), row, checkpoint: nil, in: directory.path)
        try Self.delete(Self.key("c") + Array("m1:1".utf8), in: directory.path)
        let rows = try DeviceRows(at: directory.path, cacheBytes: 0)
        #expect(try rows.device("a") == Self.device(1, waiting: 1))
        #expect(try rows.device("b") == nil)
        for read in [{ try rows.device("c") }, { try rows.devices(["a", "c"])["c"] }] {
            #expect {
                _ = try read()
            } throws: { error in
                "\(error)".contains(directory.path) && "\(error)".contains("lists 2 waiting messages, and 1 are stored")
            }
        }
        #expect {
            try rows.forEachDevice { _, _ in }
        } throws: { error in
            "\(error)".contains(directory.path)
        }
    }

    @Test(
        "counts are kept by the writes that give them and a replacement, removed by every other write or load, and refused when they do not read"
    )
    func counts() throws {
        let directory = TemporaryDirectory()
        let given = DeviceCounts(devices: 12, waitingMessages: 30)
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
            #expect(try rows.counts() == nil)
            try rows.write(
                [DeviceRowUpdate(token: "a", device: Self.device(1, waiting: 1), messages: .all)], checkpoint: 2,
                counts: given)
        }
        do {
            let rows = try DeviceRows(at: directory.path, cacheBytes: 1 << 20)
            #expect(try rows.counts() == given)
            try rows.write([("b", Self.device(2, waiting: 0))], checkpoint: 3)
            #expect(try rows.counts() == nil)
            try rows.replaceAll(
                with: [("a", Self.device(1, waiting: 2)), ("c", Self.device(3, waiting: 3))], checkpoint: 4)
            #expect(try rows.counts() == DeviceCounts(devices: 2, waitingMessages: 5))
            try rows.load([("d", Self.device(4, waiting: 1))], checkpoint: 5)
            #expect(try rows.counts() == nil)
        }
        for value in [[1, 2, 3], Array(repeating: 0xFF, count: 16)] as [[UInt8]] {
            try Self.write([(Array("counts".utf8), value)], in: directory.path)
            let damaged = try DeviceRows(at: directory.path, cacheBytes: 0)
            #expect {
                try damaged.counts()
            } throws: { error in
                "\(error)".contains(directory.path)
            }
        }
    }

    /// Stores `value` under `key` (and `checkpoint`'s bytes under the checkpoint's key) with
    /// RocksDB's C API, as another program could.
    static func put(_ key: [UInt8], _ value: [UInt8], checkpoint: [UInt8]?, in path: String) throws {
        try write([(key, value)] + (checkpoint.map { [(Array("checkpoint".utf8), $0)] } ?? []), in: path)
    }

    /// Deletes the row under `key` with RocksDB's C API.
    static func delete(_ key: [UInt8], in path: String) throws { try write([(key, nil)], in: path) }

    /// Stores each value under its key (nil: deletes the key) with RocksDB's C API.
    static func write(_ entries: [(key: [UInt8], value: [UInt8]?)], in path: String) throws {
        let options = rocksdb_options_create()
        defer { rocksdb_options_destroy(options) }
        rocksdb_options_set_create_if_missing(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        let database = try #require(rocksdb_open(options, path, &error))
        defer { rocksdb_close(database) }
        let writeOptions = rocksdb_writeoptions_create()
        defer { rocksdb_writeoptions_destroy(writeOptions) }
        for (key, value) in entries {
            defer {
                rocksdb_free(error)
                error = nil
            }
            key.withUnsafeBytes { key in
                guard let value else {
                    rocksdb_delete(database, writeOptions, key.baseAddress, key.count, &error)
                    return
                }
                value.withUnsafeBytes { value in
                    rocksdb_put(
                        database, writeOptions, key.baseAddress, key.count, value.baseAddress, value.count, &error)
                }
            }
            #expect(error == nil)
        }
    }
}
