import ArgumentParser
import BridgeConfig
import Logging

/// The options every long-running command shares: how much to log, and in which format.
struct LoggingOptions: ParsableArguments {
    /// Readable lines, or one JSON object per line for log collectors.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(
        help:
            "Log level: trace, debug, info, notice, warning, error, critical. Over the configuration's log_level (FCM_BRIDGE_LOG_LEVEL); info when neither says."
    )
    var logLevel: Logger.Level?

    @Option(help: "Log format: text (readable) or json (one object per line, for log collectors).")
    var logFormat: Format = .text

    /// The root logger, writing to standard error; every component logs through a copy of it.
    /// Until the configuration is loaded (``level(configured:)`` then says), it logs at
    /// `--log-level`, else at `info`: before that, it logs only why the configuration is refused.
    func logger(label: String) -> Logger {
        var logger =
            switch logFormat {
            case .text: Logger(label: label) { StreamLogHandler.standardError(label: $0) }
            case .json: Logger(label: label) { JSONLogHandler(label: $0) }
            }
        logger.logLevel = logLevel ?? .info
        return logger
    }

    /// The level to log at once the configuration is loaded: `--log-level`, else its `log_level`.
    func level(configured: BridgeConfiguration.LogLevel) -> Logger.Level {
        logLevel ?? Logger.Level(rawValue: configured.rawValue) ?? .info
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
