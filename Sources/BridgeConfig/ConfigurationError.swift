/// A configuration that cannot be used: which field, and what is wrong with it; with every other
/// problem found in the same read, so that one run reports them all.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field's path in the YAML file, e.g. `queue.max_pending`.
    public var field: String
    /// What is wrong.
    public var problem: String
    /// The environment variable that set the field's value, when one did (``attributed(to:)``).
    public var variable: String?
    /// The problems found after this one in the same read, in the order they were found.
    public var others: [ConfigurationError] = []

    /// Creates an error about a field.
    public init(field: String, _ problem: String) {
        self.field = field
        self.problem = problem
    }

    /// One error holding every one of `problems`, in order; nil when there are none.
    public init?(combining problems: [ConfigurationError]) {
        let all = problems.flatMap(\.problems)
        guard var first = all.first else { return nil }
        first.others = Array(all.dropFirst())
        self = first
    }

    /// Every problem, this one first, each on its own.
    public var problems: [ConfigurationError] {
        var first = self
        first.others = []
        return [first] + others.flatMap(\.problems)
    }

    /// This error with each problem that has no variable yet attributed to the `FCM_BRIDGE_`
    /// variable of its field, when `environment` sets one.
    public func attributed(to environment: [String: String]) -> ConfigurationError {
        var problems = problems
        for index in problems.indices where problems[index].variable == nil && !problems[index].field.isEmpty {
            let name = EnvironmentOverrides.name(of: problems[index].field)
            if environment[name] != nil { problems[index].variable = name }
        }
        return ConfigurationError(combining: problems) ?? self
    }

    /// The problem alone, on one line: the field, the variable that set it, and what is wrong.
    public var line: String {
        let source = variable.map { " (set by \($0))" } ?? ""
        return field.isEmpty ? "configuration: \(problem)" : "configuration field `\(field)`\(source): \(problem)"
    }

    public var description: String {
        guard !others.isEmpty else { return line }
        return "\(others.count + 1) problems: " + problems.map(\.line).joined(separator: "; ")
    }
}
