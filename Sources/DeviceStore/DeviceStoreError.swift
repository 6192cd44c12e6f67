/// A RocksDB call that failed, naming the store's directory and what RocksDB said.
public struct DeviceStoreError: Error, CustomStringConvertible {
    /// The store's directory.
    public let path: String
    /// What was being done: `open`, `read`, `write` or `scan`.
    public let operation: String
    /// RocksDB's message.
    public let message: String

    init(path: String, operation: String, message: String) {
        self.path = path
        self.operation = operation
        self.message = message
    }

    public var description: String { "device store \(path): \(operation) failed: \(message)" }
}
