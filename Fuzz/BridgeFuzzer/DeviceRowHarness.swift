import BridgeCore
import DeviceQueues
import FCMTranslation

/// A store's device rows that nobody wrote as the bridge would: the input's first two bytes give
/// the length of a head row, and the rest is the row of each message the head lists. They read
/// as a device or are refused, and a device they read as is written back to rows that read as
/// the same device. The store is the worker's own, but a damaged disk must not make a restart trap.
enum DeviceRowHarness {
    static func run(_ input: ArraySlice<UInt8>) {
        guard input.count >= 2 else { return }
        let headCount = min(Int(input[input.startIndex]) | Int(input[input.startIndex + 1]) << 8, input.count - 2)
        let head = Array(input.dropFirst(2).prefix(headCount))
        let message = Array(input.dropFirst(2 + headCount))
        guard case .success(let device) = read(head: head, message: { _ in message }) else { return }
        var writer = ByteWriter(capacity: 256)
        DeviceRow.writeHead(device, to: &writer)
        let written = writer.withUnsafeBytes { Array($0) }
        var messages: [String: [UInt8]] = [:]
        for waiting in device.waiting {
            writer.truncate(to: 0)
            DeviceRow.writeMessage(waiting, to: &writer)
            messages[waiting.id] = writer.withUnsafeBytes { Array($0) }
        }
        let again = read(head: written) { messages[$0] ?? [] }
        Fuzzing.expect((try? again.get()) == device, "rows read as a device read back as another: \(again)")
    }

    /// The device `head` and, for each message it lists, `message(id)` make.
    static func read(head: [UInt8], message: (String) -> [UInt8]) -> Result<DeviceQueue, MalformedRecord> {
        Result { () throws(MalformedRecord) in
            let parts = try head.withUnsafeBytes { bytes in
                Result { () throws(MalformedRecord) in try DeviceRow.readHead(bytes) }
            }.get()
            var messages: [String: QueuedMessage] = [:]
            for id in parts.waitingIDs {
                messages[id] = try message(id).withUnsafeBytes { bytes in
                    Result { () throws(MalformedRecord) in try DeviceRow.readMessage(id: id, bytes) }
                }.get()
            }
            return try parts.device(messages: messages)
        }
    }
}
