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

    /// Takes the lock of `directory`, which exists; throws when another process holds it.
    init(directory: String) throws(StateDirectoryError) {
        let descriptor = open(directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateDirectoryError(
                path: directory, "cannot open its .lock file: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw StateDirectoryError(path: directory, "is in use by another worker (its .lock is held)")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
