import BridgeCore
import Logging

/// The changelog records a restore did not replay as they came, by input: those dropped because
/// their input is not committed, and those replayed though their input's committed offset is
/// unknown.
struct SkippedChanges: Sendable {
    /// Dropped records: how many, and the lowest input offset among them.
    var uncommitted: [CommittedInputs.Input: (count: Int, lowestOffset: Int64)] = [:]
    /// Records replayed though their input's committed offset is unknown.
    var unknownInputs: [CommittedInputs.Input: Int] = [:]

    /// Records dropped, over every input.
    var uncommittedCount: Int { uncommitted.values.reduce(0) { $0 + $1.count } }

    /// Notes a record of `input` at `offset` dropped.
    mutating func dropped(_ input: CommittedInputs.Input, at offset: Int64) {
        let noted = uncommitted[input] ?? (0, offset)
        uncommitted[input] = (noted.count + 1, min(noted.lowestOffset, offset))
    }

    /// Adds what `other` noted.
    mutating func add(_ other: SkippedChanges) {
        uncommitted.merge(other.uncommitted) { ($0.count + $1.count, min($0.lowestOffset, $1.lowestOffset)) }
        unknownInputs.merge(other.unknownInputs, uniquingKeysWith: +)
    }

    /// Says, one line per input, what was dropped and what could not be judged.
    func log(to logger: Logger) {
        for (input, dropped) in uncommitted.sorted(by: { $0.key.description < $1.key.description }) {
            logger.notice(
                "dropped changelog records of inputs the group has not committed: they are processed again",
                metadata: [
                    "input": "\(input)", "records": "\(dropped.count)", "from_offset": "\(dropped.lowestOffset)",
                ])
        }
        for (input, count) in unknownInputs.sorted(by: { $0.key.description < $1.key.description }) {
            logger.warning(
                "replayed changelog records of an input with no committed offset to judge them by: a new group's first transaction, offsets that expired, or a changed topic layout",
                metadata: ["input": "\(input)", "records": "\(count)"])
        }
    }
}
