import FCMBridgeClient
import Foundation
import Testing

@testable import BridgeDemo

@Suite("The demo's traffic")
struct DemoTrafficTests {
    /// One device, so every request's target is known.
    let traffic = DemoTraffic(plan: DevicePlan(run: "t", devices: 1))

    @Test(
        "the mix of requests, and the final statuses each must end in",
        arguments: [
            (0, #"{"notification":{"body":"request 0","title":"To 1"},"registration_ids":["demo-t-0"]}"#, 1),
            (1, #"{"collapse_key":"score","data":{"value":"1"},"priority":"high","to":"demo-t-0"}"#, 1),
            (6, #"{"collapse_key":"weather","data":{"value":"6"},"priority":"high","to":"demo-t-0"}"#, 1),
            (3, #"{"notification":{"body":"request 3","title":"Now or never"},"time_to_live":0,"to":"demo-t-0"}"#, 1),
            (7, #"{"message":{"data":{"from":"the demo"},"token":"demo-t-0"}}"#, 1),
            (13, #"{"message":{"notification":{"title":"Dry run"},"token":"demo-t-0"},"validate_only":true}"#, 1),
            (
                2,
                #"{"message":{"notification":{"body":"Hello from fcm-bridge","title":"Message 2"},"token":"demo-t-0"}}"#,
                1
            ),
            (-5, #"{"notification":{"body":"request 0","title":"To 1"},"registration_ids":["demo-t-0"]}"#, 1),
        ])
    func item(number: Int, json: String, outcomes: Int) throws {
        var random = SystemRandomNumberGenerator()
        let item = traffic.item(number: number, using: &random)
        #expect(try encoded(item.request) == json)
        #expect(item.outcomes == outcomes)
    }

    @Test("registration_ids names three different devices, each an outcome")
    func severalDevices() {
        var random = SystemRandomNumberGenerator()
        let item = DemoTraffic(plan: DevicePlan(run: "t", devices: 5)).item(number: 50, using: &random)
        guard case .legacy(let message) = item.request else {
            Issue.record("not legacy: \(item.request)")
            return
        }
        #expect(Set(message.registrationIDs ?? []).count == 3)
        #expect(item.outcomes == 3)
    }

    @Test("a burst is that many plain messages to one device")
    func burst() throws {
        let items = traffic.burst(to: 0, count: 101)
        #expect(items.count == 101)
        #expect(items.allSatisfy { $0.request.token == "demo-t-0" && $0.outcomes == 1 })
        #expect(try encoded(items[100].request) == #"{"message":{"data":{"burst":"100"},"token":"demo-t-0"}}"#)
    }

    @Test("a third of the devices, a sleeper among them, are addressed by FID, the rest by token")
    func byFID() throws {
        let plan = DevicePlan(run: "t", devices: 12)
        #expect(plan.tokens.indices.filter(plan.isAddressedByFID) == [1, 4, 7, 10])
        #expect(plan.isSleeper(10))
        let traffic = DemoTraffic(plan: plan)
        #expect(
            try encoded(traffic.burst(to: 10, count: 1)[0].request)
                == #"{"message":{"data":{"burst":"0"},"fid":"demo-t-10"}}"#)
        #expect(
            try encoded(traffic.burst(to: 11, count: 1)[0].request)
                == #"{"message":{"data":{"burst":"0"},"token":"demo-t-11"}}"#)
        #expect(traffic.burst(to: 10, count: 1)[0].request.token == "demo-t-10")
    }

    private func encoded(_ request: SendRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(request), as: UTF8.self)
    }
}
