import Foundation
import Testing

/// Checks webhook requests as app servers in Python would: with Standard Webhooks' reference
/// library (`standardwebhooks`, installed into `.deps/python` by scripts/test.sh, which names the
/// directory in FCM_BRIDGE_TEST_PYTHONPATH), and with the standard-library `verify` the README
/// shows (its code block after `<!-- verify-snippet -->`, run as written there). Where PyPI
/// cannot be reached the library is not there, and only the README's check runs.
enum ReferenceVerifier {
    /// What each check made of one request and secret: `ok`, or why it refused; the library's
    /// is `skipped` where PyPI cannot be reached.
    struct Verdict: Hashable, CustomStringConvertible {
        var library: String
        var readme: String
        var description: String { "library: \(library), README: \(readme)" }

        /// Both accepted the request (the library, where it is there).
        var accepted: Bool { readme == "ok" && (library == "ok" || library == "skipped") }
        /// Both refused it.
        var refused: Bool { readme.hasPrefix("fail: ") && (library.hasPrefix("fail: ") || library == "skipped") }
    }

    static let script = """
        import json, os, sys
        namespace = {}
        exec(sys.argv[1], namespace)
        def outcome(check):
            try:
                check()
                return "ok"
            except Exception as error:
                return "fail: " + type(error).__name__ + ": " + str(error).replace("\\n", " ")
        skipped = "FCM_BRIDGE_PYPI_UNREACHABLE" in os.environ
        if not skipped:
            from standardwebhooks.webhooks import Webhook
        for case in json.load(sys.stdin):
            body, headers, secret = case["body"], case["headers"], case["secret"]
            library = "skipped" if skipped else outcome(lambda: Webhook(secret).verify(body, headers))
            readme = outcome(lambda: namespace["verify"]([secret], headers, body.encode()))
            print(json.dumps({"library": library, "readme": readme}))
        """

    /// The README's Python `verify`.
    static func readmeSnippet() throws -> String {
        let readme = try String(
            contentsOf: WorkerProcess.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let after = try #require(
            readme.range(of: "<!-- verify-snippet -->\n```python\n"), "the README has no verify snippet")
        let end = try #require(readme[after.upperBound...].range(of: "\n```"))
        return String(readme[after.upperBound..<end.lowerBound])
    }

    /// For each request and each secret, in that order, both checks' verdicts.
    static func verify(_ requests: [TestWebhook.Request], secrets: [String]) throws -> [Verdict] {
        let environment = ProcessInfo.processInfo.environment
        if environment["FCM_BRIDGE_PYPI_UNREACHABLE"] != nil {
            print(
                "skipped: the Standard Webhooks reference library's check (PyPI cannot be reached); the README's runs")
        }
        let path = try #require(
            environment["FCM_BRIDGE_TEST_PYTHONPATH"],
            "FCM_BRIDGE_TEST_PYTHONPATH must name where standardwebhooks is installed (scripts/test.sh sets it)")
        let cases = requests.flatMap { request in
            secrets.map { secret in
                [
                    "secret": secret, "body": request.body,
                    "headers": request.headers.filter { $0.key.hasPrefix("webhook-") },
                ] as [String: Any]
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, try readmeSnippet()]
        process.environment = environment.merging(["PYTHONPATH": path]) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: cases))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 with standardwebhooks failed: \(text)")
        return try text.split(separator: "\n").map { line in
            let verdict = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            return Verdict(library: verdict["library"] ?? "", readme: verdict["readme"] ?? "")
        }
    }
}
