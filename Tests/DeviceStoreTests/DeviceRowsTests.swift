import BridgeCore
import DeviceQueues
import DeviceStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Device rows in RocksDB")
struct DeviceRowsTests {
    /// A directory of its own under the system's temporary directory, removed after `body`.
    static func withDirectory<R>(_ body: (String) throws -> R) throws -> R {
        var template = Array("/tmp/device-rows-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw NoDirectory() }
        let path = String(cString: made)
        defer { _ = system("rm -rf '\(path)'") }
        return try body(path)
    }

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
        try Self.withDirectory { path in
            do {
                let rows = try DeviceRows(at: path, cacheBytes: 1 << 20)
                #expect(try rows.checkpoint() == nil)
                try rows.write([("a", Self.device(1, waiting: 2)), ("b", Self.device(2, waiting: 0))], checkpoint: 7)
                try rows.write([("b", nil), ("c\u{1F600}", Self.device(3, waiting: 1))], checkpoint: 9)
                #expect(try rows.device("a") == Self.device(1, waiting: 2))
            }
            let rows = try DeviceRows(at: path, cacheBytes: 1 << 20)
            #expect(try rows.checkpoint() == 9)
            #expect(try rows.device("a") == Self.device(1, waiting: 2))
            #expect(try rows.device("b") == nil)
            #expect(try rows.device("c\u{1F600}") == Self.device(3, waiting: 1))
            #expect(try rows.device("unknown") == nil)
            var scanned: [String] = []
            try rows.forEachDevice { token, device in
                scanned.append(token)
                #expect(device.lastActivity >= 1)
            }
            #expect(scanned == ["a", "c\u{1F600}"])
        }
    }

    @Test("the rows of one directory open once at a time: a second open fails, naming the directory")
    func openedOnce() throws {
        try Self.withDirectory { path in
            do {
                let rows = try DeviceRows(at: path, cacheBytes: 0)
                #expect {
                    _ = try DeviceRows(at: path, cacheBytes: 0)
                } throws: { error in
                    "\(error)".contains(path) && "\(error)".contains("open failed")
                }
                try rows.write([], checkpoint: 1)
            }
            #expect(try DeviceRows(at: path, cacheBytes: 0).checkpoint() == 1)
        }
    }
}

private struct NoDirectory: Error {}
