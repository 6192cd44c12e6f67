import Foundation
import Testing
import Yams

@testable import BridgeConfig

/// The README's configuration reference is checked against the loader: every key it reads, the
/// variable of each, and the defaults the example file shows (whose values are the defaults,
/// ExampleConfigurationTests checks).
@Suite("The README's configuration reference")
struct ConfigurationReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The reference's rows: key, variable and default, as written between backticks.
    static func rows() throws -> [(key: String, variable: String, default: String)] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let header = try #require(
            readme.range(of: "| Key | Environment variable | Default | Meaning |\n|---|---|---|---|\n"),
            "the README has no configuration reference table")
        return readme[header.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("|") }
            .map { line in
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                let unquoted = cells.map {
                    $0.hasPrefix("`") && $0.hasSuffix("`") ? String($0.dropFirst().dropLast()) : $0
                }
                return (unquoted[0], unquoted.count > 1 ? unquoted[1] : "", unquoted.count > 2 ? unquoted[2] : "")
            }
    }

    @Test("it lists every key the loader reads, once, and nothing else")
    func everyKey() throws {
        let keys = try Self.rows().map(\.key)
        #expect(keys.count == Set(keys).count, "a key listed twice: \(keys)")
        #expect(Set(keys) == Set(ConfigurationLoader.fields))
        #expect(ConfigurationLoader.fields.count >= 30)
    }

    @Test("each key's variable is the one that overrides it")
    func variables() throws {
        for row in try Self.rows() {
            #expect(row.variable == EnvironmentOverrides.name(of: row.key), "\(row.key)")
        }
    }

    @Test("each default the example file shows is the default the reference gives")
    func defaults() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("config/fcm-bridge.example.yaml"), encoding: .utf8)
        let example = try #require(try Yams.load(yaml: text) as? [String: Any])
        var checked = 0
        for row in try Self.rows() where row.key != "kafka.bootstrap_servers" {
            var value: Any? = example
            for part in row.key.split(separator: ".") { value = (value as? [String: Any])?[String(part)] }
            guard let value, !(value is [String: Any]) else { continue }
            #expect(row.default == "\(value)", "\(row.key): the example has \(value)")
            checked += 1
        }
        #expect(checked >= 20)
    }

    @Test("the variables that are not configuration fields are those the loader lets pass")
    func notFields() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(
            readme.components(separatedBy: "### Variables that are not configuration fields\n").last)
        let table = section.split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        let variables = table.compactMap { $0.firstMatch(of: /^\| `(FCM_BRIDGE_[A-Z_]+)` \|/).map { String($0.1) } }
        #expect(Set(variables) == EnvironmentOverrides.notFields && variables.count == 2)
    }
}
