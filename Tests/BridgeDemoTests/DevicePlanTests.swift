import Testing

@testable import BridgeDemo

@Suite("The demo's device plan")
struct DevicePlanTests {
    /// Device 1 is a normal device whose cycle starts 3 s in (online at cycle seconds 0-6 of 10);
    /// device 0 a sleeper starting at 0 (online 0-3 of 20); device 10 a sleeper starting 17 s in.
    @Test(
        "who is online when",
        arguments: [
            (1, 0, true), (1, 3, true), (1, 4, false), (1, 6, false), (1, 7, true), (1, 13, true), (1, 14, false),
            (0, 0, true), (0, 3, true), (0, 4, false), (0, 19, false), (0, 20, true),
            (10, 0, false), (10, 2, false), (10, 3, true), (10, 6, true), (10, 7, false),
            // From settlesAt (30) on, everyone: device 0 would be offline at 35.
            (0, 35, true), (10, 30, true),
        ])
    func online(device: Int, second: Int, expected: Bool) {
        let plan = DevicePlan(run: "t", devices: 20, settlesAt: 30)
        #expect(plan.isOnline(device, atSecond: second) == expected)
    }

    @Test("a normal device is online 7 s of every 10, a sleeper 4 of every 20")
    func shares() {
        let plan = DevicePlan(run: "t", devices: 100)
        for device in plan.tokens.indices {
            let online = (0..<20).count { plan.isOnline(device, atSecond: $0) }
            #expect(online == (plan.isSleeper(device) ? 4 : 14), "device \(device)")
        }
    }

    @Test(
        "a burst goes to the sleeper that stays offline long enough and connects soonest",
        arguments: [
            // At 4 s device 0 has just gone to sleep (16 s left) and device 10 is online.
            (4, nil as Int?, 0 as Int?),
            // At 2 s device 0 is online and device 10 connects in 1 s.
            (2, nil, nil),
            // At 8 s device 0 connects in 12 s, device 10 in 15 s.
            (8, nil, 0),
            // At 14 s device 0 connects in 6 s, device 10 in 9 s; at 16 s device 0 in 4: too soon.
            (14, nil, 0), (16, nil, 10),
            // A run that settles at 10 s: device 0 would not connect before it does.
            (4, 10, nil),
        ])
    func burstTarget(second: Int, settlesAt: Int?, expected: Int?) {
        let plan = DevicePlan(run: "t", devices: 20, settlesAt: settlesAt)
        #expect(plan.burstTarget(atSecond: second, offlineForAtLeast: 5) == expected)
    }

    @Test("a burst's device is a sleeper offline for the whole margin, at any second")
    func burstTargetStaysOffline() {
        let plan = DevicePlan(run: "t", devices: 100)
        for second in 0..<200 {
            guard let device = plan.burstTarget(atSecond: second, offlineForAtLeast: 5) else { continue }
            #expect(plan.isSleeper(device))
            #expect((second..<second + 5).allSatisfy { !plan.isOnline(device, atSecond: $0) }, "second \(second)")
        }
    }

    @Test("tokens are unique to the run")
    func tokens() {
        #expect(DevicePlan(run: "ab", devices: 3).tokens == ["demo-ab-0", "demo-ab-1", "demo-ab-2"])
        #expect(DevicePlan(run: "ab", devices: 0).tokens == ["demo-ab-0"])
    }
}
