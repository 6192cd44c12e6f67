import Logging

/// Logs throughput now and then, so an operator sees the worker is alive.
struct ProgressLog {
    let logger: Logger
    var interval: Duration = .seconds(30)
    private var inputs = 0
    private var outputs = 0
    private var since = ContinuousClock.now

    init(logger: Logger) { self.logger = logger }

    /// Counts output records handed to the producer.
    mutating func record(outputs: Int) {
        self.outputs += outputs
    }

    /// Counts input events taken, and logs if it is time.
    mutating func record(inputs: Int) {
        self.inputs += inputs
        guard ContinuousClock.now - since >= interval else { return }
        logger.info(
            "progress",
            metadata: ["records_in": "\(self.inputs)", "records_out": "\(self.outputs)", "over": "\(interval)"])
        self.inputs = 0
        self.outputs = 0
        since = ContinuousClock.now
    }
}
