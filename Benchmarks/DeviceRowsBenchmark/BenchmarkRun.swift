import BridgeCore
import DeviceQueues
@_spi(Benchmarks) import DeviceStore
import Foundation

/// One run of the benchmark: the devices, their tokens in random order, and the stores both
/// sides write, four of each as four state partitions. Each phase is a method of its own.
struct BenchmarkRun {
    static let stores = 4
    static let batchSize = 10_000

    /// Devices written.
    let devices: Int
    /// The device every token holds.
    let device: DeviceQueue
    /// `device`'s rows, encoded once for the baseline.
    let encoded: [(key: [UInt8], value: [UInt8])]
    let tokens: [String]
    /// Devices read or sent to in the phases that do not touch every device.
    let probes: Int
    let directory: String
    let raw: [RawStore]
    let rows: [DeviceRows]

    init(devices: Int, device: DeviceQueue, directory: String) throws {
        self.devices = devices
        self.device = device
        encoded = Self.rowsOf(device)
        var generator = SystemRandomNumberGenerator()
        tokens = (0..<devices).map(Self.token).shuffled(using: &generator)
        probes = min(devices, 200_000)
        self.directory = directory
        raw = try (0..<Self.stores).map { try RawStore(path: "\(directory)/raw-\($0)") }
        rows = try (0..<Self.stores).map { try DeviceRows(at: "\(directory)/rows-\($0)", cacheBytes: 64 << 20) }
    }

    /// Flushes every store and waits for its compactions, so that a phase starts from settled stores.
    func settle() throws {
        for store in raw { store.settle() }
        for store in rows { try store.settle() }
    }
}
