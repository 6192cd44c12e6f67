import FCMTranslation
import Foundation

/// Translations per second for typical ~300-byte v1 and legacy requests, beside the floor: a bare
/// JSON parse-and-serialize of the same bytes in the same run with the same JSON code. Foundation's
/// JSON paths on the same bytes are measured too, as the alternative considered.
@main
enum TranslationBenchmark {
    static let v1 = #"{"validate_only":false,"message":{"token":"fcm-token-3f9a1c2e7b8d4e6f","notification":{"title":"New message from Alice","body":"Are we still on for lunch tomorrow at noon?","image":"https://cdn.example.com/a/42.png"},"data":{"conversation_id":"c-88121","sender":"alice"},"apns":{"headers":{"apns-priority":"10","apns-collapse-id":"chat-88121"},"payload":{"aps":{"sound":"default","badge":3}}}}}"#
    static let legacy = #"{"to":"fcm-token-3f9a1c2e7b8d4e6f","priority":"high","collapse_key":"chat-88121","time_to_live":3600,"notification":{"title":"New message from Alice","body":"Are we still on for lunch tomorrow at noon?","sound":"default","badge":"3","click_action":"REPLY"},"data":{"conversation_id":"c-88121","sender":"alice"}}"#

    static func main() throws {
        let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
        let translator = APNsTranslator(bundleID: "com.example.app")
        print("\(iterations) iterations each, best of 3 runs")
        print("")
        print("| request | bytes | translate /s | floor: parse+serialize /s | time ratio (target <= 2) | Foundation JSONSerialization /s |")
        print("|---|---|---|---|---|---|")
        for (name, text) in [("v1", v1), ("legacy", legacy)] {
            let bytes = Array(text.utf8)
            let data = Data(bytes)
            var sink = 0
            let translate = best(iterations) {
                if case .success(let request) = RequestDecoder.decode(bytes),
                   case .success(let message) = translator.translate(request, messageID: "0:1:2:0", sentAt: 1_700_000_000_000) {
                    sink &+= message.jsonBytes.count
                }
            }
            let floor = best(iterations) {
                if let value = try? JSONParser.parse(bytes) { sink &+= value.jsonBytes.count }
            }
            let foundation = best(iterations) {
                if let object = try? JSONSerialization.jsonObject(with: data),
                   let output = try? JSONSerialization.data(withJSONObject: object) { sink &+= output.count }
            }
            precondition(sink > 0)
            print(String(format: "| %@ | %d | %.0f | %.0f | %.2f | %.0f |", name, bytes.count, translate, floor, floor / translate, foundation))
        }
    }

    /// Operations per second: the best of three timed runs of `iterations` calls.
    static func best(_ iterations: Int, _ body: () -> Void) -> Double {
        var best = 0.0
        for _ in 0..<3 {
            let start = ContinuousClock.now
            for _ in 0..<iterations { body() }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            best = max(best, Double(iterations) / seconds)
        }
        return best
    }
}
