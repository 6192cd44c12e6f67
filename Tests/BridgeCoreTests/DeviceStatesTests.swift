@testable import BridgeCore
import DeviceQueues
import Testing

/// Device state is keyed by the token's bytes: Swift's `String` equality is canonical
/// equivalence, under which two different tokens could share one device (issue 9, defect 9).
@Suite("Device states")
struct DeviceStatesTests {
    @Test("canonically equivalent tokens with different bytes are two devices", arguments: [
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
