import ArgumentParser
import BridgeConfig

/// `fcm-bridge validate-config --config FILE`: loads the file, applies the environment, and
/// prints the configuration a worker would run with (secrets redacted), or the field and the
/// problem, with exit status 2.
struct ValidateConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate-config",
        abstract: "Check a configuration and print the effective one, secrets redacted.",
        discussion:
            "Exits 0 when valid; 2 when not, with every problem on a line of its own, naming the field (and the FCM_BRIDGE_ variable that set it). Reads the FCM_BRIDGE_ variables as `run` does."
    )

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        do {
            let configuration = try options.loadOrThrow()
            print(configuration.fieldLines.joined(separator: "\n"))
        } catch {
            let problems = error.problems
            printError("invalid configuration: \(problems.count == 1 ? "1 problem" : "\(problems.count) problems")")
            for problem in problems { printError("  \(problem.line)") }
            throw ExitCode(2)
        }
    }
}
