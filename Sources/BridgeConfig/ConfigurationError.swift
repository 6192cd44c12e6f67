/// A configuration that cannot be used: which field, and what is wrong with it.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field's path in the YAML file, e.g. `queue.max_pending`.
    public var field: String
    /// What is wrong.
    public var problem: String

    /// Creates an error about a field.
    public init(field: String, _ problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String {
        field.isEmpty ? "configuration: \(problem)" : "configuration field `\(field)`: \(problem)"
    }
}
