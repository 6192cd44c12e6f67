import Foundation

/// A tmpfs of a few kilobytes, mounted on a directory of its own.
public struct SmallFileSystem: ~Copyable {
    /// The file system's directory.
    public let path = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID().uuidString)").path

    /// Mounts a tmpfs of `kilobytes` on a new directory; throws when this process may not.
    public init(kilobytes: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]) == 0 else {
            throw MountFailed()
        }
    }

    /// Unmounts the file system and deletes its directory. The unmount is lazy: a store the test
    /// has not closed yet, or a worker still exiting, would otherwise keep it mounted for good.
    public func unmount() {
        _ = Self.run(["umount", "--lazy", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Whether this process may mount a tmpfs.
    public static let canMount: Bool = {
        guard let probe = try? SmallFileSystem(kilobytes: 16) else { return false }
        probe.unmount()
        return true
    }()

    private static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Mounting the tmpfs failed.
    public struct MountFailed: Error {}
}
