import DeviceQueues
import TestSupport
import Testing

@testable import BridgeCore

/// Device state is keyed by the token's bytes: Swift's `String` equality is canonical
/// equivalence, under which two different tokens could share one device.
@Suite("Device states")
struct DeviceStatesTests {
    @Test(
        "canonically equivalent tokens with different bytes are two devices",
        arguments: [
            ("caf\u{E9}", "cafe\u{301}"),
            ("\u{212B}", "\u{C5}"),
            ("\u{1E0B}\u{323}", "\u{1E0D}\u{307}"),
        ])
    func tokensAreBytes(first: String, second: String) {
        #expect(first == second, "the premise: Swift calls them equal")
        var states = DeviceStates()
        states.adopt(0)
        let rules = QueueRules()
        _ = states.handle(RoutedInput(token: first, input: .presence(.connect), time: 10), in: 0, rules: rules)
        _ = states.handle(RoutedInput(token: second, input: .presence(.connect), time: 20), in: 0, rules: rules)
        #expect(states.deviceCount == 2)
    }
}

/// Idle devices are forgotten, a bounded number per input, with tombstones in the changelog.
@Suite("Forgetting idle devices")
struct IdleDeviceTests {
    static let t0: Int64 = 1_700_000_000_000
    let rules = QueueRules()

    /// States holding partition 0 with `count` devices that connected and disconnected at t0.
    func states(devices count: Int) -> DeviceStates {
        var states = DeviceStates()
        states.adopt(0)
        for index in 0..<count {
            _ = states.handle(
                RoutedInput(token: "idle-\(index)", input: .presence(.connect), time: Self.t0), in: 0, rules: rules)
            _ = states.handle(
                RoutedInput(token: "idle-\(index)", input: .presence(.disconnect), time: Self.t0), in: 0, rules: rules)
        }
        return states
    }

    @Test("a month and a day later, devices with nothing waiting are forgotten; one with a message waiting is kept")
    func forgetsIdle() {
        var states = states(devices: 100)
        let message = QueuedMessage(
            id: "0:1:0", collapseKey: nil, sentAt: Self.t0, expiresAt: Self.t0 + 40 * day, apns: [])
        _ = states.handle(RoutedInput(token: "waiting", input: .send(message), time: Self.t0), in: 0, rules: rules)
        let forgotten = states.forgetIdle(in: 0, at: Self.t0 + 31 * day, rules: rules)
        #expect(Set(forgotten.map(\.token)) == Set((0..<100).map { "idle-\($0)" }))
        #expect(forgotten.allSatisfy { $0.changes == [.forgotten] })
        #expect(states.deviceCount == 1)
    }

    @Test("a forgotten device leaves its topics and the condition sends it took, as changes to record and applied")
    func forgetsTopicState() {
        var states = states(devices: 1)
        for topic in ["sport", "news"] {
            states.apply(.deviceTopic(token: "idle-0", topic: topic, isSubscribed: true), in: 0)
        }
        let copies = ConditionCopies(entries: [.init(sendID: "0:1:0", walk: 1, sentAt: Self.t0)])
        states.apply(.conditionCopies(token: "idle-0", copies), in: 0)
        let forgotten = states.forgetIdle(in: 0, at: Self.t0 + 31 * day, rules: rules)
        #expect(
            forgotten.map(\.topicChanges) == [
                [
                    .conditionCopies(token: "idle-0", nil),
                    .deviceTopic(token: "idle-0", topic: "news", isSubscribed: false),
                    .deviceTopic(token: "idle-0", topic: "sport", isSubscribed: false),
                ]
            ])
        #expect(states.topics.topics(of: "idle-0", in: 0).isEmpty)
        #expect(states.topics.conditionCopies(of: "idle-0", in: 0) == nil)
    }

    @Test("nothing is forgotten within the inactivity limit")
    func keepsActive() {
        var states = states(devices: 10)
        #expect(states.forgetIdle(in: 0, at: Self.t0 + 30 * day, rules: rules).isEmpty)
        #expect(states.deviceCount == 10)
    }

    @Test("one input forgets a bounded number; the inputs after it forget the rest")
    func bounded() {
        var states = states(devices: 1_000)
        var rounds: [Int] = []
        while states.deviceCount > 0, rounds.count < 10 {
            rounds.append(
                states.forgetIdle(in: 0, at: Self.t0 + 31 * day, rules: rules).reduce(0) { $0 + $1.changes.count })
        }
        #expect(rounds.allSatisfy { $0 <= IdleSweep.changesPerInput })
        #expect(rounds.reduce(0, +) == 1_000 && states.deviceCount == 0)
    }

    @Test("a device active after the scan is not forgotten")
    func activeSinceScan() {
        var states = states(devices: 600)
        let scan = Self.t0 + 31 * day
        let first = states.forgetIdle(in: 0, at: scan, rules: rules)
        #expect(first.count == IdleSweep.changesPerInput)
        for index in 0..<600 {
            _ = states.handle(
                RoutedInput(token: "idle-\(index)", input: .presence(.connect), time: scan), in: 0, rules: rules)
        }
        for _ in 0..<5 { #expect(states.forgetIdle(in: 0, at: scan, rules: rules).isEmpty) }
        #expect(states.deviceCount == 600)
    }

    @Test("a partition not held forgets nothing and stays not held; dropped and adopted again, it sweeps anew")
    func partitionNotHeld() {
        var states = states(devices: 10)
        #expect(states.forgetIdle(in: 1, at: Self.t0 + 31 * day, rules: rules).isEmpty)
        #expect(!states.owns(1) && states.partitionCount == 1)
        states.drop(0)
        #expect(states.forgetIdle(in: 0, at: Self.t0 + 31 * day, rules: rules).isEmpty && !states.owns(0))
        states.adopt(0)
        _ = states.handle(RoutedInput(token: "idle", input: .presence(.disconnect), time: Self.t0), in: 0, rules: rules)
        #expect(states.forgetIdle(in: 0, at: Self.t0 + 31 * day, rules: rules).map(\.token) == ["idle"])
    }

    @Test("a record from the far future does not stop later scans")
    func farFuture() {
        var states = states(devices: 10)
        _ = states.forgetIdle(in: 0, at: Self.t0, rules: rules)
        _ = states.forgetIdle(in: 0, at: Int64.max - 1, rules: rules)
        _ = states.handle(RoutedInput(token: "later", input: .presence(.connect), time: Self.t0), in: 0, rules: rules)
        #expect(states.deviceCount >= 1)
        let forgotten = states.forgetIdle(in: 0, at: Self.t0 + 62 * day, rules: rules)
        #expect(!forgotten.isEmpty && states.deviceCount == 0)
    }

    @Test("replaying the changelog of what was forgotten leaves the same devices")
    func replay() {
        var live = DeviceStates()
        live.adopt(0)
        var replayed = DeviceStates()
        replayed.adopt(0)
        func record(_ output: QueueOutput, token: String) {
            for change in output.changes { replayed.restore(change, token: token, in: 0) }
        }
        for index in 0..<300 {
            let token = "d\(index)"
            let time = Self.t0 + Int64(index) * day / 4
            record(
                live.handle(RoutedInput(token: token, input: .presence(.connect), time: time), in: 0, rules: rules),
                token: token)
            let message = QueuedMessage(id: "0:\(index):0", collapseKey: nil, sentAt: time, expiresAt: nil, apns: [])
            record(
                live.handle(RoutedInput(token: token, input: .send(message), time: time), in: 0, rules: rules),
                token: token)
            for (forgottenToken, changes, _) in live.forgetIdle(in: 0, at: time, rules: rules) {
                for change in changes { replayed.restore(change, token: forgottenToken, in: 0) }
            }
        }
        #expect(live.deviceCount < 300, "some were forgotten")
        #expect(replayed.deviceCount == live.deviceCount)
    }
}
