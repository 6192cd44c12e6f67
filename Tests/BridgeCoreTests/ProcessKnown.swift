import Testing

@testable import BridgeCore

extension RecordProcessor {
    /// Processes `record`, which this version wrote or an app sent: a refusal (a record of a kind
    /// this version does not know) fails the test.
    func process(known record: some InputRecord, states: inout DeviceStates, outputs: inout OutputRecords) {
        do {
            try process(record, states: &states, outputs: &outputs)
        } catch {
            Issue.record("refused: \(error)")
        }
    }
}
