import Testing

@testable import BridgeCore

@Suite("Restore progress")
struct RestoreProgressTests {
    @Test(
        "a partition is done only when its position reaches the high watermark",
        arguments: [
            // position, high watermark, done
            (10, 10, true),
            (0, 0, true),
            (7, 10, false),
            (10, nil, true),
            (12, 10, true),
        ] as [(Int64, Int64?, Bool)])
    func end(position: Int64, highWatermark: Int64?, done: Bool) {
        var progress = RestoreProgress<Int32>(partitions: [0, 1])
        progress.reachedEnd(of: 0, position: position, highWatermark: highWatermark)
        #expect(progress.remaining.contains(0) == !done)
        #expect(
            progress.waiting[0]
                == (done ? nil : RestoreProgress<Int32>.Behind(position: position, highWatermark: highWatermark ?? -1)))
        #expect(!progress.isComplete)
    }

    @Test("the stable end catching up with the watermark completes a waiting partition")
    func catchesUp() {
        var progress = RestoreProgress<Int32>(partitions: [3])
        progress.reachedEnd(of: 3, position: 40, highWatermark: 42)
        #expect(!progress.isComplete && progress.waiting.count == 1)
        // The commit markers are written: the stable end moves past the transaction.
        progress.reachedEnd(of: 3, position: 42, highWatermark: 42)
        #expect(progress.isComplete && progress.waiting.isEmpty)
    }

    @Test(
        "a partition read to its readable end only is done there, whatever the watermark: others' open transactions keep it ahead"
    )
    func readableEndOnly() {
        var progress = RestoreProgress<Int32>(partitions: [0, 1], readableEndOnly: [1])
        progress.reachedEnd(of: 1, position: 40, highWatermark: 42)
        #expect(progress.remaining == [0] && progress.waiting.isEmpty)
        progress.reachedEnd(of: 0, position: 40, highWatermark: 42)
        #expect(progress.remaining == [0] && progress.waiting.count == 1)
    }

    @Test("ends of partitions not being restored change nothing")
    func otherPartitions() {
        var progress = RestoreProgress<Int32>(partitions: [1])
        progress.reachedEnd(of: 2, position: 0, highWatermark: 5)
        #expect(progress.remaining == [1] && progress.waiting.isEmpty)
    }
}
