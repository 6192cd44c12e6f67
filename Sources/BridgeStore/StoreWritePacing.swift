/// When the records held for the stores are written (``StateDirectory/takeUnwrittenIfDue(now:)``):
/// each write dirties pages all over a store's table and key index, and writes every page it
/// dirtied, so fewer, larger writes write each page fewer times. One write runs at a time, beside
/// the worker's commits; a write due while another runs waits for it.
public struct StoreWritePacing: Sendable {
    /// How many records held make a write due.
    public var records: Int
    /// How long after the first record was held a write is due.
    public var age: Duration

    /// Due once `records` are held, or the first of them was held `age` ago.
    public init(records: Int = 65_536, age: Duration = .seconds(1)) {
        self.records = records
        self.age = age
    }

    /// Whether `held` records are too many to go on holding while a write runs: twice what makes
    /// a write due, so that a writer falling behind sets the pace.
    public func isBacklogFull(holding held: Int) -> Bool {
        held / 2 >= records
    }
}
