import BridgeCore
import DeviceQueues
@_spi(Benchmarks) import DeviceStore

extension BenchmarkRun {
    /// Every device written at random, in batches of 10,000 with a checkpoint, against raw puts
    /// of the encoded rows.
    func writes() throws {
        let rawWrite = Self.rate(devices) {
            for (index, token) in tokens.enumerated() { raw[index % Self.stores].put(token, encoded) }
            for store in raw { store.flushBatch() }
        }
        for store in raw { store.settle() }
        let rowsWrite = try Self.rate(devices) {
            for store in 0..<Self.stores {
                var batch: [(token: String, device: DeviceQueue?)] = []
                for index in stride(from: store, to: devices, by: Self.stores) {
                    batch.append((tokens[index], device))
                    if batch.count == Self.batchSize {
                        try rows[store].write(batch, checkpoint: Int64(index))
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                try rows[store].write(batch, checkpoint: Int64(devices))
            }
        }
        Self.report("write, random order", rowsWrite, rawWrite)
        try settle()
    }

    /// A send to a device held, read, queued and written back; then a send's write alone, with
    /// the device in memory. Returns how many more rows each device sent to holds.
    func sends() throws -> Int {
        // A send to an offline device held, as a worker serving from the rows makes it: the rows
        // read, the message queued, the head and the rows of the messages that joined or left the
        // queue written in a batch of 10,000 with a checkpoint.
        let sent = (0..<probes).map { tokens[$0] }
        var grown = device
        let sendOutput = grown.send(Self.message(device.waiting.count + 1), at: 1, rules: QueueRules())
        let grownRows = Self.rowsOf(grown)
        let changedIDs = Self.messageIDs(sendOutput.changes)
        let changedRows =
            [(grownRows[0].key, Optional(grownRows[0].value))]
            + changedIDs.map { id in
                let suffix = [UInt8(ascii: "m")] + Array(id.utf8)
                return (suffix, grownRows.first { $0.key == suffix }?.value)
            }
        let suffixes = encoded.dropFirst().map(\.key)
        let rawSend = Self.rate(probes) {
            for (index, token) in sent.enumerated() {
                precondition(raw[index % Self.stores].read(token, messageSuffixes: suffixes), "\(token) not held")
                raw[index % Self.stores].write(token, changedRows)
            }
            for store in raw { store.flushBatch() }
        }
        let rowsSend = try Self.rate(probes) {
            var batches = [[DeviceRowUpdate]](repeating: [], count: Self.stores)
            for (index, token) in sent.enumerated() {
                guard var held = try rows[index % Self.stores].device(token) else {
                    preconditionFailure("\(token) not held")
                }
                let output = held.send(Self.message(device.waiting.count + 1), at: 1, rules: QueueRules())
                batches[index % Self.stores].append(
                    DeviceRowUpdate(token: token, device: held, messages: .named(Self.messageIDs(output.changes))))
                if batches[index % Self.stores].count == Self.batchSize {
                    try rows[index % Self.stores].write(batches[index % Self.stores], checkpoint: Int64(index))
                    batches[index % Self.stores].removeAll(keepingCapacity: true)
                }
            }
            for (store, batch) in batches.enumerated() { try rows[store].write(batch, checkpoint: Int64(probes)) }
        }
        Self.report("a send to a device held: read, queue, write back", rowsSend, rawSend)
        try settle()

        // The write of a send alone, the device in memory, as the worker writes its rows after a
        // commit: the head and the rows of the messages that joined or left the queue.
        var grownAgain = grown
        let againIDs = Self.messageIDs(
            grownAgain.send(Self.message(device.waiting.count + 2), at: 2, rules: QueueRules()).changes)
        let grownAgainRows = Self.rowsOf(grownAgain)
        let againRows =
            [(grownAgainRows[0].key, Optional(grownAgainRows[0].value))]
            + againIDs.map { id in
                let suffix = [UInt8(ascii: "m")] + Array(id.utf8)
                return (suffix, grownAgainRows.first { $0.key == suffix }?.value)
            }
        let rawSendWrite = Self.rate(probes) {
            for (index, token) in sent.enumerated() { raw[index % Self.stores].write(token, againRows) }
            for store in raw { store.flushBatch() }
        }
        let rowsSendWrite = try Self.rate(probes) {
            for store in 0..<Self.stores {
                var batch: [DeviceRowUpdate] = []
                for index in stride(from: store, to: probes, by: Self.stores) {
                    batch.append(DeviceRowUpdate(token: sent[index], device: grownAgain, messages: .named(againIDs)))
                    if batch.count == Self.batchSize {
                        try rows[store].write(batch, checkpoint: Int64(index))
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                try rows[store].write(batch, checkpoint: Int64(probes))
            }
        }
        Self.report("a send's write alone, the device in memory", rowsSendWrite, rawSendWrite)
        try settle()
        return grownAgainRows.count - encoded.count
    }
}
