import PropertyBased
import Testing

@testable import BridgeConfig

/// A read reports every problem at once, each naming its field and the variable that set it,
/// with the key a misspelt one most likely meant.
@Suite("Configuration problems, all at once")
struct ConfigurationProblemsTests {
    static func problems(_ yaml: String, environment: [String: String] = [:]) -> [ConfigurationError] {
        ConfigurationLoader.read(yaml: yaml, environment: environment).problems?.problems ?? []
    }

    @Test("three problems of one file are three problems of one read, in the order of the file's fields")
    func allAtOnce() {
        let found = Self.problems(
            "kafka: {bootstrap_servers: b:1}\nqueue: {max_pending: many}\ndelivery: sometimes\nhttp: {port: 1}")
        #expect(found.map(\.field) == ["queue.max_pending", "delivery", "http.port"], "\(found)")
        #expect(found.allSatisfy { $0.others.isEmpty })
    }

    @Test("a misspelt required key: the key is missing, and the misspelling says what it meant")
    func didYouMean() {
        let found = Self.problems("kafka: {bootstrap_server: b:1}")
        #expect(found.map(\.field) == ["kafka.bootstrap_servers", "kafka.bootstrap_server"], "\(found)")
        #expect(found.last?.problem == "unknown key (did you mean `bootstrap_servers`?)")
    }

    @Test("a key far from every known one lists the known keys of its section")
    func noCloseKey() {
        let found = Self.problems("kafka: {bootstrap_servers: b:1}\napns: {zzzzzzzz: 1}")
        #expect(found.map(\.problem) == ["unknown key (known here: bundle_id, payload_limit)"])
    }

    @Test("a value from the environment names its variable")
    func variableNamed() {
        let found = Self.problems(
            "kafka: {bootstrap_servers: b:1}", environment: ["FCM_BRIDGE_QUEUE_MAX_PENDING": "abc"])
        #expect(found.map(\.variable) == ["FCM_BRIDGE_QUEUE_MAX_PENDING"])
        #expect(
            found.first?.line
                == "configuration field `queue.max_pending` (set by FCM_BRIDGE_QUEUE_MAX_PENDING): must be a whole number, got \"abc\""
        )
    }

    @Test("the same problem from the file names no variable")
    func fileValueNamesNoVariable() {
        let found = Self.problems("kafka: {bootstrap_servers: b:1}\nqueue: {max_pending: abc}")
        #expect(found.map(\.variable) == [nil])
    }

    @Test("a misspelt variable says which one it meant; each unknown variable is its own problem")
    func misspeltVariables() {
        let found = Self.problems(
            "kafka: {bootstrap_servers: b:1}",
            environment: ["FCM_BRIDGE_QUEUE_MAX_PENDNG": "5", "FCM_BRIDGE_NOTHING_LIKE_IT": "1"])
        #expect(
            found.map(\.problem) == [
                "environment variable FCM_BRIDGE_NOTHING_LIKE_IT overrides no configuration field",
                "environment variable FCM_BRIDGE_QUEUE_MAX_PENDNG overrides no configuration field (did you mean FCM_BRIDGE_QUEUE_MAX_PENDING?)",
            ])
    }

    @Test("errors combined keep every problem once, in order, however nested")
    func combining() throws {
        let (a, b, c) = (
            ConfigurationError(field: "a", "1"), ConfigurationError(field: "b", "2"),
            ConfigurationError(field: "c", "3")
        )
        let inner = try #require(ConfigurationError(combining: [b, c]))
        let outer = try #require(ConfigurationError(combining: [a, inner]))
        #expect(outer.problems == [a, b, c])
        #expect(outer.description == "3 problems: " + [a, b, c].map(\.line).joined(separator: "; "))
        #expect(ConfigurationError(combining: []) == nil)
    }

    @Test(
        "the closest known name within a third of the typed one's length, at most 3 edits",
        arguments: [
            ("bootstrap_server", ["bootstrap_servers", "group_id"], "bootstrap_servers"),
            ("grup_id", ["group_id", "client_id"], "group_id"),
            ("Group_ID", ["group_id"], "group_id"),
            ("max_pendingg", ["max_pending", "max_collapse_keys"], "max_pending"),
            ("delivry", ["delivery", "log_level"], "delivery"),
            ("partitions", ["properties"], nil),
            ("ab", ["xy"], nil),
            ("group_id", ["group_id"], nil),
            ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ["group_id"], nil),
            (String(repeating: "a", count: 101), [String(repeating: "a", count: 100)], nil),
        ] as [(String, [String], String?)])
    func closestName(typed: String, known: [String], meant: String?) {
        #expect(ClosestName.to(typed, among: known) == meant)
    }

    @Test("the edit distance is a distance: zero only to itself, symmetric, within the lengths' bounds")
    func editDistanceIsADistance() async {
        let letters = Array("ab_c")
        let text = Gen.int(in: 0...3).array(of: 0...12).map { (picks: [Int]) in String(picks.map { letters[$0] }) }
        await propertyCheck(count: 500, input: text, text) { a, b in
            let (x, y) = (Array(a.unicodeScalars), Array(b.unicodeScalars))
            let distance = ClosestName.editDistance(x, y)
            #expect((distance == 0) == (a == b))
            #expect(distance == ClosestName.editDistance(y, x))
            #expect(distance >= abs(x.count - y.count) && distance <= max(x.count, y.count))
        }
    }

    @Test("text that is not YAML is one problem, and the environment's problems are still found")
    func notYAML() {
        let found = Self.problems("kafka: [unclosed", environment: ["FCM_BRIDGE_QUEUE_MAX_PENDING": "abc"])
        #expect(found.map(\.field) == ["", "kafka.bootstrap_servers", "queue.max_pending"], "\(found)")
        #expect(found.first?.problem.hasPrefix("not valid YAML") == true)
    }

    @Test("a file that cannot be read is one problem, and the environment's problems are still found")
    func unreadableFile() {
        let (_, problems) = ConfigurationLoader.read(
            file: "/nonexistent/fcm-bridge.yaml",
            environment: ["FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": "b:1", "FCM_BRIDGE_DELIVERY": "sometimes"])
        #expect(problems?.problems.map(\.field) == ["", "delivery"], "\(String(describing: problems))")
        #expect(problems?.problems.last?.variable == "FCM_BRIDGE_DELIVERY")
    }

    @Test("an empty required value is one problem, not also a missing one")
    func emptyRequired() {
        let found = Self.problems("kafka: {bootstrap_servers: ' '}")
        #expect(found.map(\.line) == ["configuration field `kafka.bootstrap_servers`: must not be empty"])
    }
}
