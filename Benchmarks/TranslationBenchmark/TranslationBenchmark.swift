import FCMTranslation
import Foundation

/// Translations per second (decode, validate, translate, serialize) of typical ~300-byte v1 and
/// legacy requests read from the files given, best of 3 runs. `scripts/benchmark.sh translation`
/// runs the baseline (orjson's bare loads + dumps of the same files) in the same run.
///
/// Usage: TranslationBenchmark ITERATIONS FILE...; prints `name bytes translations_per_second`.
@main
enum TranslationBenchmark {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let iterations = arguments.first.flatMap({ Int($0) }), iterations > 0, arguments.count > 1 else {
            FileHandle.standardError.write(Data("usage: TranslationBenchmark ITERATIONS FILE...\n".utf8))
            exit(2)
        }
        let translator = APNsTranslator(bundleID: "com.example.app")
        for path in arguments.dropFirst() {
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            var sink = 0
            let rate = best(iterations) {
                if case .success(let request) = RequestDecoder.decode(bytes),
                    case .success(let message) = translator.translate(
                        request, messageID: "0:1:2:0", sentAt: 1_700_000_000_000)
                {
                    sink &+= message.jsonBytes.count
                }
            }
            guard sink > 0 else { throw BenchmarkError(description: "\(path) did not translate") }
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            print(name, bytes.count, Int(rate.rounded()))
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

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
}
