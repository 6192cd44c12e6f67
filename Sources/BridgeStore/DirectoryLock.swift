#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive lock on a state directory (`flock` on its `.lock` file), held until the last
/// copy of its ``StateDirectory`` goes or the process ends: two workers sharing a directory
/// would delete each other's stores.
final class DirectoryLock: Sendable {
    private let descriptor: Int32

    /// How long a lock held elsewhere is waited for: a predecessor that is exiting (a restart on
    /// the same volume), or a process forked this instant that has not yet closed its copy of
    /// the descriptor, lets it go within that.
    static let patience = 2.0
    static let retryMicroseconds: UInt32 = 50_000

    /// Takes the lock of `directory`, which exists; throws when another process still holds it
    /// after ``patience`` seconds.
    init(directory: String) throws(StateDirectoryError) {
        let descriptor = open(directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateDirectoryError(
                path: directory, "cannot open its .lock file: \(String(cString: strerror(errno)))")
        }
        var waits = Int(Self.patience * 1_000_000) / Int(Self.retryMicroseconds)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard waits > 0 else {
                close(descriptor)
                throw StateDirectoryError(path: directory, "is in use by another worker (its .lock is held)")
            }
            waits -= 1
            usleep(Self.retryMicroseconds)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
