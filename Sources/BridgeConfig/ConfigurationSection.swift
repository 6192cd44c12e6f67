import Foundation
import Yams

/// One mapping of the YAML file, read field by field. Each field can be overridden by an
/// environment variable named after its path (``ConfigurationSection/environmentName(of:)``).
/// ``finish()`` rejects keys nobody read, so a misspelt key is an error, not a silent default.
struct ConfigurationSection {
    /// The section's path, e.g. `kafka`; empty for the top level.
    let path: String
    private let entries: [String: Node]
    private let environment: EnvironmentOverrides
    private var read: Set<String> = []

    init(_ node: Node?, path: String, environment: EnvironmentOverrides) throws(ConfigurationError) {
        self.path = path
        self.environment = environment
        var entries: [String: Node] = [:]
        switch node {
        case nil:
            break
        case let node? where node.null != nil:
            break
        case .mapping(let mapping)?:
            for (key, value) in mapping {
                guard let name = key.string else {
                    throw ConfigurationError(field: path, "keys must be strings")
                }
                guard entries[name] == nil else {
                    throw ConfigurationError(field: Self.join(path, name), "appears twice")
                }
                entries[name] = value
            }
        default:
            throw ConfigurationError(field: path, "must be a mapping of keys to values")
        }
        self.entries = entries
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func field(_ key: String) -> String { Self.join(path, key) }

    /// A nested section.
    mutating func section(_ key: String) throws(ConfigurationError) -> ConfigurationSection {
        read.insert(key)
        return try ConfigurationSection(entries[key], path: field(key), environment: environment)
    }

    /// The text of a scalar field, from the environment first, then the file; nil when absent.
    mutating func string(_ key: String) throws(ConfigurationError) -> String? {
        read.insert(key)
        if let value = environment.value(for: field(key)) { return value }
        guard let node = entries[key] else { return nil }
        guard case .scalar(let scalar) = node else {
            throw ConfigurationError(field: field(key), "must be a single value, not a list or mapping")
        }
        if node.null != nil { return nil }
        return scalar.string
    }

    /// An integer field within `range`; nil when absent.
    mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws(ConfigurationError) -> Int64? {
        guard let text = try string(key) else { return nil }
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(field: field(key), "must be a whole number, got \"\(text)\"")
        }
        guard range.contains(value) else {
            throw ConfigurationError(
                field: field(key), "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    /// A field that takes one of `Choice`'s raw values; nil when absent.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, of type: Choice.Type)
        throws(ConfigurationError) -> Choice?
    where Choice.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = Choice(rawValue: text) else {
            let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
            throw ConfigurationError(field: field(key), "must be \(allowed), got \"\(text)\"")
        }
        return value
    }

    /// A text field that, when present, must not be empty.
    mutating func nonEmptyString(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try string(key) else { return nil }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError(field: field(key), "must not be empty")
        }
        return text
    }

    /// Every entry of a mapping of free-form names to scalar values (e.g. librdkafka properties),
    /// plus the environment's `<prefix>_<NAME>` variables, with the name in lower case and
    /// underscores as dots.
    mutating func freeFormStrings(_ key: String) throws(ConfigurationError) -> [String: String] {
        var values: [String: String] = [:]
        var nested = try section(key)
        for name in nested.entries.keys {
            values[name] = try nested.string(name)
        }
        return values.merging(environment.values(under: field(key))) { $1 }
    }

    /// Throws for the first key no read asked for.
    func finish() throws(ConfigurationError) {
        if let unknown = entries.keys.sorted().first(where: { !read.contains($0) }) {
            let known = read.sorted().joined(separator: ", ")
            throw ConfigurationError(field: field(unknown), "unknown key (known here: \(known))")
        }
    }
}
