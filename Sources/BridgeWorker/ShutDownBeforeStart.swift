/// A graceful shutdown came while the worker waited for its cluster: no record had been read.
struct ShutDownBeforeStart: Error, CustomStringConvertible {
    var description: String { "shut down before the Kafka cluster answered" }
}
