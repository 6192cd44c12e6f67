/// The problems one read of a configuration finds, shared by its sections, so that a read goes
/// on past a bad field (keeping the default in its place) and reports every problem at once.
final class ConfigurationProblems {
    private(set) var found: [ConfigurationError] = []

    func record(_ problem: ConfigurationError) { found.append(problem) }

    /// Throws one error holding every problem found, if any.
    func check() throws(ConfigurationError) {
        if let error = ConfigurationError(combining: found) { throw error }
    }
}
