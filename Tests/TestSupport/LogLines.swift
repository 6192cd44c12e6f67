import Logging
import Synchronization

/// The lines a logger wrote, each as its message and its metadata, `key=value`, sorted.
/// Log lines kept in memory.
public final class LogLines: Sendable {
    public let lines = Mutex<[String]>([])

    public init() {}

    /// A logger that writes here, at every level.
    public var logger: Logger { Logger(label: "test") { _ in Handler(lines: self) } }

    /// A handler that writes here.
    public var handler: some LogHandler { Handler(lines: self) }

    /// The lines written so far that contain `text`.
    public func containing(_ text: String) -> [String] { lines.withLock { $0.filter { $0.contains(text) } } }

    private struct Handler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: " ")
            lines.lines.withLock { $0.append("\(event.message) \(fields)") }
        }
    }
}
