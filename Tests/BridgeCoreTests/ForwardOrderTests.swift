import FCMTranslation
import NIOCore
import Testing

@testable import BridgeCore

/// Per-device send order across the two paths: a record that could be
/// handled in place must not overtake an earlier input for its device that this worker sent
/// through the repartition topic and has not read back yet.
extension RecordProcessorTests {
    private var repartitionTopic: String { Self.configuration.repartitionTopic }
    private var elsewhere: Int32 { (owner + 1) % Self.statePartitions }

    /// The message ids of the inbox records in `outputs`, in order.
    private func dispatched(_ outputs: [OutputRecords.Copy]) -> [String] {
        outputs.filter { $0.topic == .inbox }.compactMap {
            $0.header("message-id").map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test(
        "a record on its device's partition follows an earlier forward of the same device through the repartition topic"
    )
    func followsForward() throws {
        var states = heldStates()
        let processor = processor()
        _ = process([presence("connect", partition: owner)], with: processor, states: &states)
        // A multicast on another partition reaches device-a through the repartition topic...
        let first = process(
            [send(#"{"registration_ids":["device-a","device-b"],"data":{"k":"1"}}"#, partition: elsewhere, offset: 5)],
            with: processor, states: &states)
        // ...so a later send on device-a's own partition must take the same path, not overtake it.
        let second = process(
            [send(#"{"to":"device-a","data":{"k":"2"}}"#, partition: owner, offset: 6)], with: processor,
            states: &states)
        #expect(dispatched(second).isEmpty, "handled in place ahead of the earlier forward")
        let forwards = (first + second).filter { $0.topic == .repartition && $0.key == Array(token.utf8) }
        #expect(forwards.count == 2)
        var arrived: [OutputRecords.Copy] = []
        for (index, forward) in forwards.enumerated() {
            arrived += process(
                [consumed(forward, topic: repartitionTopic, offset: Int64(index))], with: processor, states: &states)
        }
        #expect(dispatched(arrived) == ["\(elsewhere):5:0", "\(owner):6:0"])
        // Once both are back, a send on the device's partition is handled in place again.
        let third = process(
            [send(#"{"to":"device-a","data":{"k":"3"}}"#, partition: owner, offset: 7)], with: processor,
            states: &states)
        #expect(dispatched(third) == ["\(owner):7:0"])
    }

    @Test("an earlier forward read back does not release a device with a later forward still on its way")
    func waitsForLastForward() throws {
        var states = heldStates()
        let processor = processor()
        let first = process(
            [send(#"{"registration_ids":["device-a","x"],"data":{"k":"1"}}"#, partition: elsewhere, offset: 1)],
            with: processor, states: &states)
        let second = process(
            [send(#"{"registration_ids":["device-a","x"],"data":{"k":"2"}}"#, partition: elsewhere, offset: 2)],
            with: processor, states: &states)
        let forwards = (first + second).filter { $0.topic == .repartition && $0.key == Array(token.utf8) }
        _ = process([consumed(try #require(forwards.first), topic: repartitionTopic)], with: processor, states: &states)
        let third = process(
            [send(#"{"to":"device-a","data":{"k":"3"}}"#, partition: owner, offset: 3)], with: processor,
            states: &states)
        #expect(third.map(\.topic) == [.repartition], "forwarded behind the second")
    }

    @Test("a forwarded record names its source, so that the worker knows when it is back")
    func sourceHeader() throws {
        var states = heldStates()
        let outputs = process(
            [send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: elsewhere, offset: 12)], with: processor(),
            states: &states)
        let forward = try #require(outputs.first)
        #expect(forward.header("source") == Array("\(topics.send):\(elsewhere):12".utf8))
    }
}
