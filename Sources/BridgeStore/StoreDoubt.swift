/// Why a partition's local store cannot be trusted: the worker deletes it, says why in one line,
/// and restores the partition from its changelog.
public struct StoreDoubt: Error, CustomStringConvertible {
    /// The store's file.
    public var path: String
    /// What is wrong with it.
    public var reason: String

    /// The store at `path` cannot be trusted, for `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "the local store \(path) is not used: \(reason)" }
}
