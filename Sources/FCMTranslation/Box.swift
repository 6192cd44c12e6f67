/// An immutable value on the heap: a type that holds an optional of a large value that is rarely
/// there (a send's topic target, its fan-out) copies a word for it. Equal when the values are.
public final class Box<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The value held.
    public let value: Value

    public init(_ value: Value) { self.value = value }

    public static func == (left: Box, right: Box) -> Bool { left.value == right.value }

    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
