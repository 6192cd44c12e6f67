/// The kinds of changelog record, named by the first byte of their key: the one place their
/// wire letters are declared. A letter, once written, is never reused for another kind: a
/// worker meets the records of every version before it (see ``ChangelogCodec``).
enum ChangelogKind: UInt8, CaseIterable, Sendable {
    /// `d <token>`: a device's status, or its tombstone once it is forgotten.
    case device = 0x64  // d
    /// `m <message id> <token>`: a waiting message, or its tombstone once it left.
    case waitingMessage = 0x6D  // m
    /// `a <message id> <token>`: a dispatched message awaiting `ack`, or its tombstone.
    case awaitingAcknowledgement = 0x61  // a
    /// `t <topic> <token>`: a topic's member, in the topic's state partition.
    case member = 0x74  // t
    /// `s <topic> <token>`: a topic in a device's own set, in the device's state partition.
    case deviceTopic = 0x73  // s
    /// `c <token>`: the condition sends a device took its copy of.
    case conditionCopies = 0x63  // c
    /// `j <send id> <topic index>`: a fan-out's walk of one topic.
    case walk = 0x6A  // j
    /// `k <send id>`: a fan-out's tally began, in its first topic's state partition (the send's
    /// id, target and time; written once, so that compaction keeps it ahead of the rest), or
    /// completed (a tombstone).
    case tally = 0x6B  // k
    /// `e <send id> <topic index>`: the end of one walk, with its last chunks.
    case walkEnded = 0x65  // e
    /// `q <send id> <topic>.<segment>.<partition>`: one channel's acknowledgements, so that an
    /// acknowledgement is one small record.
    case tallyProgress = 0x71  // q

    /// Whether the kind is topic state (``TopicChange``) rather than a device's queue.
    var isTopicState: Bool {
        switch self {
        case .device, .waitingMessage, .awaitingAcknowledgement: false
        case .member, .deviceTopic, .conditionCopies, .walk, .tally, .walkEnded, .tallyProgress: true
        }
    }
}
