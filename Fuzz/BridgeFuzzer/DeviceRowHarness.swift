import BridgeCore
import DeviceQueues

/// A store's device row that nobody wrote as the bridge would: it reads as a device or is
/// refused, and a device it reads as is written back to a row that reads as the same device.
/// The store is the worker's own, but a damaged disk must not make a restart trap.
enum DeviceRowHarness {
    static func run(_ input: ArraySlice<UInt8>) {
        let read = input.withUnsafeBytes { bytes in
            Result { () throws(MalformedRecord) in try DeviceRow.read(bytes) }
        }
        guard case .success(let device) = read else { return }
        let again = DeviceRow.write(device).withUnsafeBytes { bytes in
            Result { () throws(MalformedRecord) in try DeviceRow.read(bytes) }
        }
        Fuzzing.expect((try? again.get()) == device, "a row read as a device reads back as another: \(again)")
    }
}
