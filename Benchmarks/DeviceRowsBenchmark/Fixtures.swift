import BridgeCore
import DeviceQueues
@_spi(Benchmarks) import DeviceStore
import FCMTranslation
import Foundation

/// The tokens, devices and measures every phase shares.
extension BenchmarkRun {
    static func token(_ index: Int) -> String {
        "d\(index):APA91b" + String(repeating: "x", count: 140)
    }

    /// The key ``DeviceRows`` gives `token`'s head row; a message's row adds `m` and its id.
    static func key(_ token: String) -> [UInt8] {
        [UInt8(ascii: "d")] + withUnsafeBytes(of: UInt32(token.utf8.count).bigEndian) { Array($0) } + Array(token.utf8)
    }

    /// The ids of the messages `changes` add to or remove from a queue: the message rows they change.
    static func messageIDs(_ changes: [StateChange]) -> Set<String> { Set(changes.compactMap(\.waitingMessageID)) }

    /// `device`'s rows as ``DeviceRows`` writes them: its head first (an empty key suffix), then
    /// each message's, keyed by what follows the token (`m` and the id), in key order.
    static func rowsOf(_ device: DeviceQueue) -> [(key: [UInt8], value: [UInt8])] {
        var writer = ByteWriter(capacity: 1_024)
        DeviceRow.writeHead(device, to: &writer)
        var rows = [(key: [UInt8](), value: writer.withUnsafeBytes { Array($0) })]
        for message in device.waiting {
            writer.truncate(to: 0)
            DeviceRow.writeMessage(message, to: &writer)
            rows.append(([UInt8(ascii: "m")] + Array(message.id.utf8), writer.withUnsafeBytes { Array($0) }))
        }
        return [rows[0]] + rows.dropFirst().sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }

    /// An offline device with `messages` messages waiting and `acknowledgements` ids awaiting
    /// `ack`, as a device that was sent messages while online and left without acknowledging them.
    static func sampleDevice(acknowledgements: Int, messages: Int) -> DeviceQueue {
        var ids = UnacknowledgedIDs()
        for index in 0..<acknowledgements { ids.append("0:1700000000000000%31bd1c96\(index)") }
        let status = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        return DeviceQueue(status: status, waiting: (1...max(messages, 1)).map(message), unacknowledged: ids)
    }

    /// A message of about 300 payload bytes, `index` in its id, expiring four weeks after it was
    /// sent (the default time to live).
    static func message(_ index: Int) -> QueuedMessage {
        let apns = Array(
            #"{"aps":{"alert":{"title":"New message","body":"\#(String(repeating: "Hello there, ", count: 14))"},"sound":"default"},"conversation":"c-42"}"#
                .utf8)
        return QueuedMessage(
            id: "0:1700000000000000%31bd1c9631bd1c9\(index)", collapseKey: nil, sentAt: 1_700_000_000_000,
            expiresAt: 1_702_419_200_000, apns: apns)
    }

    /// Every device of `rows`, decoded into a dictionary by token, as a restart rebuilds them.
    static func load(_ rows: DeviceRows) throws -> Int {
        var held: [DeviceKey: DeviceQueue] = [:]
        try rows.forEachDevice { token, device in held[DeviceKey(token: token)] = device }
        return held.count
    }

    static func rate(_ operations: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(operations) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    static func report(_ label: String, _ rows: Double, _ raw: Double) {
        print("| \(label) | \(Int(rows)) | \(Int(raw)) | \(String(format: "%.2f", rows / raw)) |")
    }
}
