/// When the records held for the stores are written (``StateDirectory/takeUnwrittenIfDue(now:)``):
/// each write dirties pages all over a store's key index, and writes every page it dirtied, so
/// fewer, larger writes write each page fewer times.
public struct StoreWritePacing: Sendable {
    /// Records held that are written at once.
    public var records: Int
    /// How long the first record held waits at most.
    public var age: Duration

    /// Written once `records` are held, or the first of them was held `age` ago.
    public init(records: Int = 65_536, age: Duration = .seconds(1)) {
        self.records = records
        self.age = age
    }
}
