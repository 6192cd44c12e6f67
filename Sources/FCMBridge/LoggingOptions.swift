import ArgumentParser
import Logging

/// The options every long-running command shares: how much to log, and in which format.
struct LoggingOptions: ParsableArguments {
    /// Readable lines, or one JSON object per line for log collectors.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Log format: text (readable) or json (one object per line, for log collectors).")
    var logFormat: Format = .text

    /// The root logger, writing to standard error; every component logs through a copy of it.
    func logger(label: String) -> Logger {
        var logger =
            switch logFormat {
            case .text: Logger(label: label) { StreamLogHandler.standardError(label: $0) }
            case .json: Logger(label: label) { JSONLogHandler(label: $0) }
            }
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
