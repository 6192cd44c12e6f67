import FCMBridgeClient

/// What the demo's parts report to its scoreboard.
public enum DemoEvent: Sendable {
    /// The traffic generator's broker took `requests`, which must end in `outcomes` final statuses,
    /// and in as many more as the `fanned_out` of each of its `fanOuts` topic or condition sends
    /// counts.
    case sent(requests: Int, outcomes: Int, fanOuts: Int = 0)
    /// The traffic generator stopped (the run's duration is over).
    case trafficStopped
    /// A status event about one of the run's devices.
    case status(StatusEvent)
    /// A device read a record from its inbox.
    case inbox(InboxRecord)
    /// The devices acknowledged `count` messages (presence `ack`).
    case acknowledged(count: Int)
    /// How many devices are online now.
    case online(Int)
    /// A second passed: time to redraw.
    case tick
    /// Ctrl-C (or SIGTERM): stop now.
    case stopRequested
    /// A part of the demo failed and stopped.
    case failed(String)
}
