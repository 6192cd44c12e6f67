import Testing

@testable import BridgeCore

/// When the idle sweep scans: event time an interval from the last scan, either way, and the
/// inputs since to pay for it.
@Suite("The idle sweep's scans")
struct IdleSweepTests {
    static let hour: Int64 = IdleSweep.interval
    static let steady: [Int64] = Array(repeating: 0, count: 20)
    static let forwards: [Int64] = (1...20).map { Int64($0) * hour }
    static let backwards: [Int64] = (1...20).map { -Int64($0) * hour }
    static let alternating: [Int64] = (1...20).map { $0 % 2 == 0 ? Int64.max - 1 : 0 }

    /// Event times of 20 inputs after a first scan at 0, in a partition of 160 devices (10 inputs
    /// pay for a scan), and the scans they make.
    @Test(
        "a scan needs an interval of event time, either way, and a sixteenth of the devices in inputs",
        arguments: [(steady, 0), (forwards, 2), (backwards, 2), (alternating, 1)])
    func scans(times: [Int64], expected: Int) {
        var sweep = IdleSweep()
        let first = sweep.isScanDue(at: 0, deviceCount: 160)
        #expect(first)
        sweep.scanned(at: 0, idle: [])
        var scans = 0
        for time in times where sweep.isScanDue(at: time, deviceCount: 160) {
            sweep.scanned(at: time, idle: [])
            scans += 1
        }
        #expect(scans == expected)
    }
}
