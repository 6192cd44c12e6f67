/// Which partitions (of the changelog, and of the repartition topic's backlog) a restore has read
/// to their end, where the end is the high watermark. A read_committed consumer stops at the last
/// stable offset instead: right after a predecessor's commit, before the broker has written the
/// transaction's markers, that is short of the changes the committed input offsets already cover.
/// Stopping there would leave state behind its inputs, so a partition is only done once its
/// position reaches the high watermark.
public struct RestoreProgress<Partition: Hashable & Sendable>: Sendable, Hashable {
    /// Partitions not read to their end yet.
    public private(set) var remaining: Set<Partition>
    /// Partitions whose readable end is short of their high watermark, with both: a transaction
    /// on them is not finished (or its markers are not written) yet.
    public private(set) var waiting: [Partition: Behind] = [:]

    /// How far a partition's readable end is behind its high watermark.
    public struct Behind: Sendable, Hashable {
        /// Where the consumer stands: the readable end (the last stable offset).
        public var position: Int64
        /// The offset after the last record written.
        public var highWatermark: Int64
    }

    /// Partitions done at their readable end, whatever the high watermark.
    private let readableEndOnly: Set<Partition>

    /// Progress of restoring `partitions`, none read yet. Those also in `readableEndOnly` are
    /// done at their first readable end: partitions other live writers add to (the repartition
    /// topic), whose high watermark their open transactions keep ahead of the stable end for as
    /// long as they write.
    public init(partitions: [Partition], readableEndOnly: [Partition] = []) {
        remaining = Set(partitions)
        self.readableEndOnly = Set(readableEndOnly)
    }

    /// Every partition has been read to its end.
    public var isComplete: Bool { remaining.isEmpty }

    /// The consumer's next offset in `partition` is `position` and it has nothing more to return
    /// for now; the last fetch reported `highWatermark` (nil if none has yet).
    public mutating func reachedEnd(of partition: Partition, position: Int64, highWatermark: Int64?) {
        guard remaining.contains(partition) else { return }
        // A fetch sets the watermark before it reports an end, so nil means nothing to wait for.
        if !readableEndOnly.contains(partition), let highWatermark, position < highWatermark {
            waiting[partition] = Behind(position: position, highWatermark: highWatermark)
        } else {
            remaining.remove(partition)
            waiting[partition] = nil
        }
    }

    /// `partition` is to be read again from its start (its position was out of range).
    public mutating func readAgain(_ partition: Partition) {
        remaining.insert(partition)
        waiting[partition] = nil
    }
}
