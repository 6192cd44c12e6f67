/// A graceful shutdown came while the worker waited for its cluster: nothing had started.
struct ShutDownBeforeStart: Error, CustomStringConvertible {
    var description: String { "shut down before the Kafka cluster answered" }
}
