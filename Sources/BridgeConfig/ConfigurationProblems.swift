/// The problems one read of a configuration finds, shared by its sections, so that a read goes
/// on past a bad field (keeping the default in its place) and reports every problem at once.
final class ConfigurationProblems {
    private(set) var found: [ConfigurationError] = []

    func record(_ problem: ConfigurationError) { found.append(problem) }
}
