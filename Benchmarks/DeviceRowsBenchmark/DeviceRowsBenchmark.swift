import BridgeCore
import CRocksDB
import DeviceQueues
@_spi(Benchmarks) import DeviceStore
import FCMTranslation
import Foundation

/// Device rows written, read and loaded per second through ``DeviceRows`` (each device's rows
/// encoded or decoded as ``DeviceRow``'s head and message rows), against RocksDB's C API given
/// the same keys and bytes, in the same run.
///
/// `devices` offline devices with `messages` waiting messages each (default one; a token of FCM's
/// length, about 300 payload bytes a message) and `acknowledgements` ids awaiting `ack` each
/// (default none), spread over four
/// stores as over four state partitions, in random order. The baseline's databases have the same
/// options as ``DeviceRows``' (lz4, bloom filters, a 64 MiB block cache), so the ratios are what the
/// wrapper and ``DeviceRow`` cost; every database is flushed and its compactions ended before each
/// phase.
///
/// - writes: batches of 10,000 rows with a checkpoint, against raw puts of the encoded rows;
/// - point reads of devices held and not held, against raw gets of the same keys;
/// - devices read 500 at a time (a batch's misses, read together before it is processed),
///   against RocksDB's batched `MultiGet` of the same heads and then of their message rows;
/// - a send to a device held (read, queue, write its head and the rows of the messages that
///   joined or left its queue), against a raw get, scan and puts; and its write alone;
/// - a load of every device into a dictionary by token (a restart that rebuilds the state):
///   one store after the other, and the four stores on two threads; against a raw scan of the
///   same stores on as many threads; and the idle devices found by a scan of every row (the
///   idle sweep of a partition served from its rows);
/// - a changelog applied into empty rows (a restore with no local state), against raw puts of
///   the rows that result, each part of it written in a batch, and then each as a table file;
/// - every device loaded into empty rows in one table file a store (``DeviceRows/load(_:checkpoint:)``),
///   against the same rows sorted and ingested through the C API;
/// - the changelog replayed in memory and then loaded into empty rows, one store after another
///   and on two threads, against the apply's baseline.
@main
enum DeviceRowsBenchmark {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
        let devices = max((arguments.first ?? nil) ?? 1_000_000, BenchmarkRun.stores)
        let acknowledgements = max((arguments.dropFirst().first ?? nil) ?? 0, 0)
        let messages = min(max((arguments.dropFirst(2).first ?? nil) ?? 1, 1), 100)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("device-rows-benchmark").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let device = BenchmarkRun.sampleDevice(acknowledgements: acknowledgements, messages: messages)
        let run = try BenchmarkRun(devices: devices, device: device, directory: directory)
        print(
            "\(devices) devices with \(messages) waiting messages and \(acknowledgements) ids awaiting ack each, "
                + "a head of \(run.encoded[0].value.count) bytes and \(run.encoded[1].value.count) bytes a message, "
                + "in \(BenchmarkRun.stores) stores"
        )
        print()
        print("| operation | fcm-bridge (DeviceRows) per s | RocksDB's C API per s | ratio |")
        print("|---|---|---|---|")
        try run.writes()
        try run.reads()
        try run.readsTogether()
        let extraRows = try run.sends()
        try run.loads(extraRows: extraRows)
        try run.restores()
    }
}
