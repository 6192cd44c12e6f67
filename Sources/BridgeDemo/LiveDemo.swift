import FCMBridgeClient
import Foundation
import Kafka
import Logging

/// The live demo: a traffic generator (the app server), a device simulator and a status reader
/// run against a running bridge, with a summary redrawn every second, until the duration is over
/// (then every device connects, and the demo waits for the last statuses) or ``stop()``.
///
/// Run it once.
public struct LiveDemo: Sendable {
    /// What to run against, and how much.
    public struct Settings: Sendable {
        /// The bridge's cluster, for the demo's producers.
        public var kafka: KafkaConfiguration
        /// The same cluster for the demo's readers, with their own properties.
        public var readers: KafkaConfiguration
        public var sendTopic = "fcm.send"
        public var presenceTopic = "fcm.presence"
        public var inboxTopic = "fcm.inbox"
        public var statusTopic = "fcm.status"
        public var subscriptionsTopic = "fcm.subscriptions"
        public var devices = 100
        /// Requests a second.
        public var rate = 200
        /// How long traffic flows; nil: until ``stop()``.
        public var duration: Duration?
        /// How long a bounded run waits for the last statuses after the traffic stopped.
        public var settleTimeout = Duration.seconds(60)
        /// The bridge's `queue.max_pending`: the bursts overflow it.
        public var maxPending = 100
        /// Whether the bridge may repeat a status (`delivery: at_least_once`).
        public var allowsRepeats = false

        public init(kafka: KafkaConfiguration, readers: KafkaConfiguration) {
            self.kafka = kafka
            self.readers = readers
        }
    }

    private let settings: Settings
    private let display: TerminalDisplay
    private let logger: Logger
    private let events: AsyncStream<DemoEvent>
    private let sink: AsyncStream<DemoEvent>.Continuation

    public init(settings: Settings, display: TerminalDisplay = TerminalDisplay(), logger: Logger) {
        self.settings = settings
        self.display = display
        self.logger = logger
        (events, sink) = AsyncStream.makeStream(of: DemoEvent.self)
    }

    /// Ends the run now, with a final summary.
    public func stop() { sink.yield(.stopRequested) }

    /// Runs the demo; returns what it saw. Throws when a part of it failed. `summarized` is
    /// told what the run saw, and the failure of a part if one failed, as soon as the final
    /// summary is shown: before the parts stop and the clients close, which a broker gone away
    /// can hold.
    public func run(summarized: @Sendable (DemoScoreboard, _ failure: String?) -> Void = { _, _ in }) async throws
        -> DemoScoreboard
    {
        let run = String(UInt32.random(in: .min ... .max), radix: 16)
        let plan = DevicePlan(
            run: run, devices: settings.devices, settlesAt: settings.duration.map { Int($0.components.seconds) })
        let clients = try DemoClients(settings: settings, run: run, logger: logger)
        let generator = TrafficGenerator(
            traffic: DemoTraffic(plan: plan), sender: clients.sender, rate: max(settings.rate, 1),
            maxPending: settings.maxPending, duration: settings.duration)
        let simulator = DeviceSimulator(
            plan: plan, presenceTopic: settings.presenceTopic, presence: clients.presence, inbox: clients.inbox)
        let start = ContinuousClock.now
        let ending = await withTaskGroup(of: Void.self) { group in
            let sink = self.sink
            group.addTask {
                await Self.reportingFailure(sink) { try await generator.run(from: start, reporting: sink) }
            }
            group.addTask {
                await Self.reportingFailure(sink) { try await simulator.run(from: start, reporting: sink) }
            }
            group.addTask {
                await Self.reportingFailure(sink) {
                    for try await status in clients.statuses where Self.isOfRun(status, plan: plan) {
                        sink.yield(.status(status))
                    }
                }
            }
            group.addTask {
                while (try? await Task.sleep(for: .seconds(1))) != nil { sink.yield(.tick) }
            }
            defer { group.cancelAll() }
            let ending = await summarize(plan: plan, from: start)
            // Shown before the parts stop and the clients close, whatever that takes.
            finish(ending, devices: plan.tokens.count, elapsed: start.duration(to: .now))
            summarized(ending.scoreboard, ending.failure)
            return ending
        }
        await clients.close(logger: logger)
        if let failure = ending.failure { throw DemoFailure(description: failure) }
        return ending.scoreboard
    }

    /// The closing summary, with rates over the whole run, and the verdict.
    private func finish(_ ending: Ending, devices: Int, elapsed: Duration) {
        let columns = display.lineWidth
        display.finish(
            DemoSummary.lines(
                ending.scoreboard, previous: DemoScoreboard(), interval: elapsed, elapsed: elapsed,
                duration: settings.duration, devices: devices, columns: columns) + [""]
                + DemoSummary.verdict(ending.scoreboard, elapsed: elapsed, columns: columns),
            replacing: ending.shown)
    }

    /// How the run ended: what it saw, the failure that ended it, and the lines on screen.
    private typealias Ending = (scoreboard: DemoScoreboard, failure: String?, shown: Int)

    /// Whether `status` is about one of the run's devices, or is a `fanned_out` of one of its
    /// topic or condition sends (keyed by the first topic).
    static func isOfRun(_ status: StatusEvent, plan: DevicePlan) -> Bool {
        if let token = status.token { return plan.contains(token) }
        guard status.type == .fannedOut, let key = status.key else { return false }
        return plan.ownsTopic(String(decoding: key, as: UTF8.self))
    }

    /// Records every event and redraws each second, until the run is over.
    private func summarize(plan: DevicePlan, from start: ContinuousClock.Instant) async -> Ending {
        var board = DemoScoreboard(checksEachMessage: settings.duration != nil, allowsRepeats: settings.allowsRepeats)
        var previous = board
        var previousTick = start
        var shown = 0
        var printed: Int?
        // Once all is accounted for, a late repeat still has two more seconds to show.
        var accountedTicks = 0
        for await event in events {
            board.record(event)
            switch event {
            case .failed(let failure):
                return (board, failure, shown)
            case .stopRequested:
                return (board, nil, shown)
            case .tick:
                let now = ContinuousClock.now
                let elapsed = start.duration(to: now)
                let lines = DemoSummary.lines(
                    board, previous: previous, interval: previousTick.duration(to: now), elapsed: elapsed,
                    duration: settings.duration, devices: plan.tokens.count, columns: display.lineWidth)
                let second = Int(elapsed.components.seconds)
                if display.isTerminal || printed.map({ second >= $0 + display.pipedEvery }) ?? true {
                    shown = display.show(lines, replacing: shown)
                    printed = second
                }
                previous = board
                previousTick = now
                accountedTicks = board.trafficStopped && board.accountedFor ? accountedTicks + 1 : 0
                if accountedTicks > 2
                    || board.trafficStopped && elapsed > (settings.duration ?? .zero) + settings.settleTimeout
                {
                    return (board, nil, shown)
                }
            default:
                break
            }
        }
        return (board, nil, shown)
    }

    /// Runs `body`; an error other than cancellation is reported as `.failed`.
    private static func reportingFailure(_ sink: AsyncStream<DemoEvent>.Continuation, _ body: () async throws -> Void)
        async
    {
        do { try await body() } catch is CancellationError {} catch { sink.yield(.failed("\(error)")) }
    }
}

/// A part of the demo failed.
public struct DemoFailure: Error, CustomStringConvertible {
    public var description: String
}
