import BridgeHealth
import FCMBridgeClient
import Logging
import ServiceLifecycle

/// The watch loop, as a service: reads the status events of `types` and delivers each; an event
/// the webhook keeps refusing is parked, so its partition moves on. An event's offset is
/// committed once it is delivered or parked (``StatusEvents`` made with `commitsEachEvent`
/// commits it when the next is asked for), so a watcher killed mid-delivery delivers it again.
/// SIGTERM or SIGINT stop it between attempts.
public struct Watcher: Service {
    let statuses: StatusEvents
    let types: Set<StatusEvent.EventType>
    let delivery: EventDelivery
    let parking: ParkingTopic
    let logger: Logger

    /// Delivers the events of `types` read from `statuses` by `delivery`, parking refused ones.
    public init(
        statuses: StatusEvents, types: Set<StatusEvent.EventType>, delivery: EventDelivery, parking: ParkingTopic,
        logger: Logger
    ) {
        self.statuses = statuses
        self.types = types
        self.delivery = delivery
        self.parking = parking
        self.logger = logger
    }

    /// Runs until graceful shutdown.
    public func run() async throws {
        delivery.health.set(.ready)
        defer { delivery.health.set(.stopping) }
        do {
            try await cancelWhenGracefulShutdown {
                for try await event in statuses where types.contains(event.type) {
                    let id = event.position
                    guard case .refused(let answer, let attempts) = try await delivery.deliver(event, id: id) else {
                        continue
                    }
                    try await parking.park(event, id: id, answer: answer, attempts: attempts)
                    delivery.metrics.parked.increment()
                    logger.error(
                        "the webhook refused the event; parked it and moved on (fcm-bridge watch --replay-parked sends it again)",
                        metadata: [
                            "event": "\(id)", "token": "\(event.token ?? "none")", "answer": "\(answer.summary)",
                            "attempts": "\(attempts)", "parking_topic": "\(parking.name)",
                        ])
                }
            }
        } catch is CancellationError {
            logger.notice(
                "stopping: what was delivered or parked is committed; the event in delivery, if any, is delivered by the next watcher"
            )
        }
    }
}
