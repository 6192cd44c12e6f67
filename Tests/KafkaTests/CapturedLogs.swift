import Logging
import Synchronization

/// A logger whose lines the test can read back.
final class CapturedLogs: Sendable {
    private let storage = Mutex<[String]>([])

    var lines: [String] { storage.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(logs: self) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            logs.storage.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
