#if !FUZZING
    import Foundation

    /// Built without libFuzzer, the fuzzer replays the inputs named on its command line: the seed
    /// corpus and the regressions in CI, or a crash libFuzzer saved (`BridgeFuzzer crash-<hash>`).
    @main
    enum Replay {
        static func main() throws {
            let paths = CommandLine.arguments.dropFirst()
            for path in paths {
                Fuzzing.run(try Array(Data(contentsOf: URL(fileURLWithPath: path)))[...])
            }
            print("replayed \(paths.count) inputs")
        }
    }
#endif
