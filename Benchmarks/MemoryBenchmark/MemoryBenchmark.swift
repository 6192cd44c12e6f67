import BridgeCore
import DeviceQueues
import FCMTranslation
import Foundation

/// Resident memory per waiting message (or, with `memberships`, per topic membership; see
/// ``Memberships``): offline devices each holding messages of about 300 payload bytes, built
/// through the worker's own intake and device state. The baseline, measured
/// in the same run (in a child process, so the two do not share a heap), holds just the same
/// payload bytes, one array per message.
@main
enum MemoryBenchmark {
    static func main() throws {
        let arguments = CommandLine.arguments
        let devices = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
        let perDevice = arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10
        switch arguments.count > 1 ? arguments[1] : "" {
        case "state": print(measureState(devices: devices, perDevice: perDevice))
        case "payloads": print(measurePayloads(devices: devices, perDevice: perDevice))
        case "members": print(Memberships.measureMembers(devices: devices, perDevice: perDevice))
        case "device-topics": print(Memberships.measureDeviceTopics(devices: devices, perDevice: perDevice))
        case "tokens": print(Memberships.measureTokens(devices: devices, perDevice: perDevice))
        case "memberships": try Memberships.report(devices: devices, perDevice: perDevice)
        default: try report(devices: devices, perDevice: perDevice)
        }
    }

    /// A request of ~300 payload bytes, like a chat notification with a little data.
    static func request(_ token: String, _ index: Int) -> [UInt8] {
        Array(
            #"{"to":"\#(token)","priority":"high","notification":{"title":"New message from Alice \#(index)","body":"Are we still on for lunch tomorrow at noon? Bring the slides for the review.","sound":"default","badge":"3","click_action":"REPLY"},"data":{"conversation_id":"c-88121-\#(index)","sender":"alice","thread":"t-2231-lunch-plans"}}"#
                .utf8)
    }

    /// An FCM-like 163-character registration token.
    static func token(_ device: Int) -> String {
        let suffix = String(device, radix: 16)
        return "fMEP0vJqS0:APA91bH" + String(repeating: "x", count: 163 - 18 - suffix.count) + suffix
    }

    static let translator = APNsTranslator(bundleID: "com.example.app")

    static func measureState(devices: Int, perDevice: Int) -> String {
        let intake = SendIntake(translator: translator)
        var states = DeviceStates()
        let rules = QueueRules()
        for partition in 0..<8 { states.adopt(Int32(partition)) }
        let before = residentBytes()
        var payloadBytes = 0
        var offset: Int64 = 0
        for round in 0..<perDevice {
            for device in 0..<devices {
                let result = intake.admit(
                    request(token(device), round), partition: Int32(device % 8), offset: offset,
                    time: 1_700_000_000_000 + offset)
                offset += 1
                for routed in result.accepted {
                    if case .send(let message) = routed.input,
                        let payload = (try? JSONParser.parse(message.withAPNs { Array($0) }))?["payload"]
                    {
                        payloadBytes += payload.jsonBytes.count
                    }
                    _ = states.handle(routed, in: Int32(device % 8), rules: rules)
                }
            }
        }
        let after = residentBytes()
        precondition(states.deviceCount == devices)
        return "\(after - before) \(payloadBytes)"
    }

    static func measurePayloads(devices: Int, perDevice: Int) -> String {
        let before = residentBytes()
        var held: [[UInt8]] = []
        held.reserveCapacity(devices * perDevice)
        for round in 0..<perDevice {
            for device in 0..<devices {
                if case .success(let request) = RequestDecoder.decode(request(token(device), round)),
                    case .success(let message) = translator.translate(
                        request, messageID: "0:\(round):\(device)", sentAt: 1_700_000_000_000)
                {
                    held.append(Array(message.payloadJSON))
                }
            }
        }
        let after = residentBytes()
        precondition(held.count == devices * perDevice)
        return "\(after - before) \(held.reduce(0) { $0 + $1.count })"
    }

    static func report(devices: Int, perDevice: Int) throws {
        let messages = Double(devices * perDevice)
        let state = try child("state", devices, perDevice)
        let payloads = try child("payloads", devices, perDevice)
        let payloadPerMessage = state.payload / messages
        let statePerMessage = state.resident / messages
        print("\(devices) offline devices x \(perDevice) waiting messages (\(Int(messages)) messages)")
        print("")
        print("| measure | bytes per message |")
        print("|---|---|")
        print(String(format: "| APNs payload (average) | %.0f |", payloadPerMessage))
        print(String(format: "| baseline: RSS holding the payloads alone | %.0f |", payloads.resident / messages))
        print(String(format: "| bridge: RSS of device state | %.0f |", statePerMessage))
        print(
            String(format: "| bridge beyond the payload (target <= 256) | %.0f |", statePerMessage - payloadPerMessage))
        print(String(format: "| ratio bridge / baseline | %.2f |", state.resident / payloads.resident))
    }

    /// Runs this program in `mode` and reads its "resident payload" answer.
    static func child(_ mode: String, _ devices: Int, _ perDevice: Int) throws -> (resident: Double, payload: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [mode, String(devices), String(perDevice)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard numbers.count == 2 else { throw BenchmarkFailed(output: output) }
        return (numbers[0], numbers[1])
    }

    /// This process's resident set size, from /proc/self/statm.
    static func residentBytes() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

struct BenchmarkFailed: Error {
    var output: String
}
