import CRDKafka
import Glibc

/// The pipe a consumer that reads partitions in turns waits on when it finds nothing:
/// librdkafka writes to it when any watched queue gets something while empty
/// (`rd_kafka_queue_io_event_enable`), and a rebalance writes to it to end the wait at once.
final class WakeUpPipe: Sendable {
    /// Both ends non-blocking: read end, write end.
    private let ends: (read: Int32, write: Int32)

    init() throws(KafkaError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw KafkaError(
                RD_KAFKA_RESP_ERR__FAIL, message: "cannot make the consumer's wake-up pipe: errno \(errno)")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.ends = (ends[0], ends[1])
    }

    deinit {
        Glibc.close(ends.read)
        Glibc.close(ends.write)
    }

    /// Has librdkafka write to the pipe when `queue` gets something while empty.
    func watch(_ queue: OpaquePointer) {
        withUnsafeBytes(of: UInt8(1)) { one in
            rd_kafka_queue_io_event_enable(queue, ends.write, one.baseAddress, one.count)
        }
    }

    /// Stops watching `queue`, about to be destroyed.
    func unwatch(_ queue: OpaquePointer) {
        rd_kafka_queue_io_event_enable(queue, -1, nil, 0)
    }

    /// Forgets earlier wake-ups: call it before looking at the queues, so that anything arriving
    /// after the look wakes the next ``wait(milliseconds:)``.
    func clear() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(ends.read, &bytes, MemoryLayout.size(ofValue: bytes)) > 0 {}
    }

    /// Waits until a watched queue gets something, ``wake()`` is called, or `milliseconds` pass.
    func wait(milliseconds: Int32) {
        var descriptor = pollfd(fd: ends.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, max(0, milliseconds))
    }

    /// Ends a ``wait(milliseconds:)`` in progress, or the next one.
    func wake() {
        var byte: UInt8 = 1
        _ = write(ends.write, &byte, 1)
    }
}
