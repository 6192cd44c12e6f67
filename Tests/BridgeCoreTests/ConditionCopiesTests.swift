import Testing

@testable import BridgeCore

/// What a device remembers of the condition sends it took: the walk of each, for a day of send
/// time after the newest, and at most a bounded number.
@Suite("Condition copies")
struct ConditionCopiesTests {
    @Test("a send noted is found with its walk; one never noted is not")
    func lookup() {
        var copies = ConditionCopies()
        copies.note("1:2:0", walk: 3, sentAt: 10)
        #expect(copies.walk(for: "1:2:0") == 3)
        #expect(copies.walk(for: "1:3:0") == nil)
    }

    @Test("entries older than the horizon before a newer send are forgotten; younger ones kept")
    func horizon() {
        var copies = ConditionCopies()
        copies.note("old", walk: 0, sentAt: 1_000)
        copies.note("recent", walk: 1, sentAt: 1_000 + ConditionCopies.horizon)
        #expect(copies.walk(for: "old") == 0, "at the horizon exactly, kept")
        copies.note("newer", walk: 0, sentAt: 1_001 + ConditionCopies.horizon)
        #expect(copies.walk(for: "old") == nil && copies.walk(for: "recent") == 1)
    }

    @Test("beyond the most kept the oldest go first; extreme send times never trap")
    func bounded() {
        var copies = ConditionCopies()
        for index in 0...ConditionCopies.maximumKept { copies.note("s\(index)", walk: 0, sentAt: 5) }
        #expect(copies.entries.count == ConditionCopies.maximumKept)
        #expect(copies.walk(for: "s0") == nil && copies.walk(for: "s1") == 0)
        copies.note("min", walk: 1, sentAt: .min)
        copies.note("max", walk: 1, sentAt: .max)
        #expect(copies.walk(for: "max") == 1)
    }
}
