/// Environment variables that override configuration fields. Each field has one:
/// `FCM_BRIDGE_` and the field's path in capitals with dots as underscores
/// (`queue.max_pending` is `FCM_BRIDGE_QUEUE_MAX_PENDING`). A free-form mapping such as
/// `kafka.properties` takes `FCM_BRIDGE_KAFKA_PROPERTIES_<NAME>`, the name in capitals with dots
/// as underscores (`FCM_BRIDGE_KAFKA_PROPERTIES_SASL_PASSWORD` sets `sasl.password`).
///
/// Reads are recorded, so that ``recordUnused(in:)`` can report a variable that names no field.
final class EnvironmentOverrides {
    static let prefix = "FCM_BRIDGE_"
    /// `FCM_BRIDGE_` variables that are not configuration fields: the watcher's webhook secrets
    /// and the gateway's token secret, which never belong in the YAML file and may share an
    /// environment with the worker.
    static let notFields: Set<String> = ["FCM_BRIDGE_WEBHOOK_SECRETS", "FCM_BRIDGE_GATEWAY_TOKEN_SECRET"]

    private let variables: [String: String]
    private var used: Set<String> = []
    private var usedPrefixes: [String] = []
    /// The fields asked for, in order; a free-form mapping's as `<path>.<name>`.
    private(set) var fieldsAsked: [String] = []

    /// The `FCM_BRIDGE_` variables of `environment`.
    init(_ environment: [String: String]) {
        variables = environment.filter { $0.key.hasPrefix(Self.prefix) }
    }

    /// The variable that overrides `field`; a free-form mapping's entry `<path>.<name>` gives
    /// `FCM_BRIDGE_<PATH>_<NAME>`.
    static func name(of field: String) -> String {
        prefix + String(field.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 })
    }

    /// Whether `field` has an override, without counting as a read.
    func isSet(_ field: String) -> Bool {
        variables[Self.name(of: field)] != nil
    }

    /// The override of a field, if set.
    func value(for field: String) -> String? {
        let name = Self.name(of: field)
        used.insert(name)
        fieldsAsked.append(field)
        return variables[name]
    }

    /// The overrides of a free-form mapping's entries, by entry name.
    func values(under field: String) -> [String: String] {
        let prefix = Self.name(of: field) + "_"
        usedPrefixes.append(prefix)
        fieldsAsked.append(field + ".<name>")
        var values: [String: String] = [:]
        for (name, value) in variables where name.hasPrefix(prefix) && name.count > prefix.count {
            values[name.dropFirst(prefix.count).lowercased().replacing("_", with: ".")] = value
        }
        return values
    }

    /// Records each `FCM_BRIDGE_` variable that overrides nothing, with the variable it most
    /// likely meant.
    func recordUnused(in problems: ConfigurationProblems) {
        for name in variables.keys.sorted() {
            guard !used.contains(name), !Self.notFields.contains(name), !usedPrefixes.contains(where: name.hasPrefix)
            else { continue }
            let hint = ClosestName.to(name, among: used.union(Self.notFields)).map { " (did you mean \($0)?)" } ?? ""
            problems.record(
                ConfigurationError(field: "", "environment variable \(name) overrides no configuration field\(hint)"))
        }
    }
}
