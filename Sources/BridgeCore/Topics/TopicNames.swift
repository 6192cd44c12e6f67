/// Topic names held once per worker, each as a small id that devices' own topic sets hold
/// instead of the name: a name is kept while any device of the worker is in its topic.
struct TopicNames: Sendable, Equatable {
    private var ids: [String: UInt32] = [:]
    private var names: [String] = []
    private var references: [Int] = []
    private var free: [UInt32] = []

    /// Names held.
    var count: Int { ids.count }

    /// The id of `name`, if a device holds it.
    func id(of name: String) -> UInt32? { ids[name] }

    /// The name of `id`.
    func name(of id: UInt32) -> String { names[Int(id)] }

    /// The id of `name`, held once more.
    mutating func hold(_ name: String) -> UInt32 {
        if let id = ids[name] {
            references[Int(id)] += 1
            return id
        }
        let id: UInt32
        if let reused = free.popLast() {
            id = reused
            names[Int(id)] = name
            references[Int(id)] = 1
        } else {
            id = UInt32(names.count)
            names.append(name)
            references.append(1)
        }
        ids[name] = id
        return id
    }

    /// Holds `id` once less; its name goes when nobody holds it.
    mutating func release(_ id: UInt32) {
        references[Int(id)] -= 1
        guard references[Int(id)] == 0 else { return }
        ids[names[Int(id)]] = nil
        names[Int(id)] = ""
        free.append(id)
    }
}
