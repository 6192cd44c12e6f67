import BridgeStore
import Foundation
import Logging
import Testing

/// The stores of partitions the worker no longer owns stay for the cleanup delay, then go.
@Suite("The state directory's cleanup")
struct StateDirectoryTests {
    static let logger = Logger(label: "test")

    @Test("a released store is deleted after the delay, not before; one taken back is kept")
    func cleanupDelay() throws {
        let files = StoreFiles()
        var directory = try files.directory(cleanupDelay: .seconds(60))
        for partition: Int32 in [0, 1] { _ = try directory.open(partition, logger: Self.logger) }
        let released = ContinuousClock.now
        directory.release(0)
        directory.release(1)
        _ = try directory.open(1, logger: Self.logger)
        #expect(try directory.removeExpired(now: released + .seconds(59)) == [])
        #expect(FileManager.default.fileExists(atPath: directory.file(of: 0)))
        #expect(try directory.removeExpired(now: released + .seconds(61)) == [0])
        #expect(!FileManager.default.fileExists(atPath: directory.file(of: 0)))
        #expect(FileManager.default.fileExists(atPath: directory.file(of: 1)))
    }

    @Test("an expired store a write is under way to is spared until it is not")
    func sparedWhileWritten() throws {
        let files = StoreFiles()
        var directory = try files.directory(cleanupDelay: .zero)
        for partition: Int32 in [0, 1] { _ = try directory.open(partition, logger: Self.logger) }
        directory.release(0)
        directory.release(1)
        #expect(try directory.removeExpired(sparing: [1]) == [0])
        #expect(FileManager.default.fileExists(atPath: directory.file(of: 1)))
        #expect(try directory.removeExpired() == [1])
        #expect(!FileManager.default.fileExists(atPath: directory.file(of: 1)))
    }

    @Test("stores found at start count as released then; other files are left alone")
    func foundAtStart() throws {
        let files = StoreFiles()
        do {
            var directory = try files.directory()
            _ = try directory.open(3, logger: Self.logger)
        }
        try Data("keep".utf8).write(to: URL(fileURLWithPath: files.path + "/notes.txt"))
        var directory = try files.directory(cleanupDelay: .zero)
        #expect(try directory.removeExpired() == [3])
        #expect(FileManager.default.fileExists(atPath: files.path + "/notes.txt"))
    }
}

/// One worker at a time: a second process (or value) cannot take a directory in use.
@Suite("The state directory's lock")
struct StateDirectoryLockTests {
    @Test("a directory in use is refused, naming it; once let go it can be taken")
    func inUse() throws {
        let files = StoreFiles()
        var first: StateDirectory? = try files.directory()
        #expect(first != nil)
        #expect {
            _ = try files.directory()
        } throws: { error in
            (error as? StateDirectoryError).map { "\($0)".contains("state.directory \(files.path) is in use") } ?? false
        }
        first = nil
        #expect(throws: Never.self) { _ = try files.directory() }
    }

    @Test("a directory let go while a second value waits for it is taken, not refused")
    func letGoWhileWaiting() throws {
        let files = StoreFiles()
        var first: StateDirectory? = try files.directory()
        // The thread's copy is the last: the directory is let go when the thread is done with it.
        Thread.detachNewThread { [first] in
            usleep(300_000)
            withExtendedLifetime(first) {}
        }
        first = nil
        #expect(throws: Never.self) { _ = try files.directory() }
    }
}
