import BridgeStore
import NIOPosix

extension StoreWrite {
    /// Runs the write on NIO's thread pool: SQLite blocks its thread while it writes, which is
    /// then none of the threads the worker's tasks run on.
    func runOnThreadPool() async throws {
        try await NIOThreadPool.singleton.runIfActive { try run() }
    }
}
