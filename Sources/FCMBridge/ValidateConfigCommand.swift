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
            "Exits 0 when valid, 2 naming the field and the problem when not. Reads the FCM_BRIDGE_ variables as `run` does."
    )

    @OptionGroup var options: ConfigurationOptions

    func run() throws {
        do {
            let configuration = try options.loadOrThrow()
            print(configuration.fieldLines.joined(separator: "\n"))
        } catch {
            printError("invalid configuration: \(error)")
            throw ExitCode(2)
        }
    }
}
