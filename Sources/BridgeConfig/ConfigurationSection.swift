import Foundation
import Yams

/// One mapping of the YAML file, read field by field. Each field can be overridden by an
/// environment variable named after its path (``EnvironmentOverrides/name(of:)``). A field that
/// cannot be read is recorded in the read's ``ConfigurationProblems`` and reads as absent, so the
/// read goes on; ``finish()`` records keys nobody read, so a misspelt key is an error, not a
/// silent default.
struct ConfigurationSection {
    /// The section's path, e.g. `kafka`; empty for the top level.
    let path: String
    private let entries: [String: Node]
    private let environment: EnvironmentOverrides
    private let problems: ConfigurationProblems
    private var read: Set<String> = []

    init(_ node: Node?, path: String, environment: EnvironmentOverrides, problems: ConfigurationProblems) {
        self.path = path
        self.environment = environment
        self.problems = problems
        var entries: [String: Node] = [:]
        switch node {
        case nil:
            break
        case let node? where node.null != nil:
            break
        case .mapping(let mapping)?:
            for (key, value) in mapping {
                guard let name = key.string else {
                    problems.record(ConfigurationError(field: path, "keys must be strings"))
                    continue
                }
                guard entries[name] == nil else {
                    problems.record(ConfigurationError(field: Self.join(path, name), "appears twice"))
                    continue
                }
                entries[name] = value
            }
        default:
            problems.record(ConfigurationError(field: path, "must be a mapping of keys to values"))
        }
        self.entries = entries
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func field(_ key: String) -> String { Self.join(path, key) }

    /// Records a problem of the field `key`.
    func problem(_ key: String, _ problem: String) {
        problems.record(ConfigurationError(field: field(key), problem))
    }

    /// Records a problem of the section as a whole.
    func problem(_ problem: String) {
        problems.record(ConfigurationError(field: path, problem))
    }

    /// Whether the field `key` is given a value, by the environment or the file (a null value
    /// is none).
    func isSet(_ key: String) -> Bool {
        environment.isSet(field(key)) || entries[key].map { $0.null == nil } ?? false
    }

    /// A nested section.
    mutating func section(_ key: String) -> ConfigurationSection {
        read.insert(key)
        return ConfigurationSection(entries[key], path: field(key), environment: environment, problems: problems)
    }

    /// The text of a scalar field, from the environment first, then the file; nil when absent.
    mutating func string(_ key: String) -> String? {
        read.insert(key)
        if let value = environment.value(for: field(key)) { return value }
        guard let node = entries[key] else { return nil }
        guard case .scalar(let scalar) = node else {
            problem(key, "must be a single value, not a list or mapping")
            return nil
        }
        if node.null != nil { return nil }
        return scalar.string
    }

    /// An integer field within `range`; nil when absent.
    mutating func integer(_ key: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = string(key) else { return nil }
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
            problem(key, "must be a whole number, got \"\(text)\"")
            return nil
        }
        guard range.contains(value) else {
            problem(key, "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
            return nil
        }
        return value
    }

    /// A field that is `true` or `false`; nil when absent.
    mutating func boolean(_ key: String) -> Bool? {
        guard let text = string(key) else { return nil }
        switch text.trimmingCharacters(in: .whitespaces) {
        case "true": return true
        case "false": return false
        default:
            problem(key, "must be true or false, got \"\(text)\"")
            return nil
        }
    }

    /// A field that takes one of `Choice`'s raw values; nil when absent.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, of type: Choice.Type) -> Choice?
    where Choice.RawValue == String {
        guard let text = string(key) else { return nil }
        guard let value = Choice(rawValue: text) else {
            let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            problem(key, "must be \(allowed), got \"\(text)\"")
            return nil
        }
        return value
    }

    /// A text field that, when present, must not be empty.
    mutating func nonEmptyString(_ key: String) -> String? {
        guard let text = string(key) else { return nil }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            problem(key, "must not be empty")
            return nil
        }
        return text
    }

    /// Every entry of a mapping of free-form names to scalar values (e.g. librdkafka properties),
    /// plus the environment's `<prefix>_<NAME>` variables, with the name in lower case and
    /// underscores as dots.
    mutating func freeFormStrings(_ key: String) -> [String: String] {
        var values: [String: String] = [:]
        var nested = section(key)
        for name in nested.entries.keys {
            values[name] = nested.string(name)
        }
        return values.merging(environment.values(under: field(key))) { $1 }
    }

    /// Records each key no read asked for, with the known key it most likely meant.
    func finish() {
        for unknown in entries.keys.sorted() where !read.contains(unknown) {
            let hint =
                ClosestName.to(unknown, among: read).map { "did you mean `\($0)`?" }
                ?? "known here: \(read.sorted().joined(separator: ", "))"
            problem(unknown, "unknown key (\(hint))")
        }
    }
}
