/// The kinds of input in a batch, which decide how much the next batch takes in while it
/// commits (see ``overlapShare(committing:open:)``).
struct InputMix: OptionSet, Sendable {
    let rawValue: UInt8

    /// Records of the state topic: the worker's own work (fan-out steps and copies, forwards).
    static let own = InputMix(rawValue: 1)
    /// Records of the other topics: sends, presence and subscriptions, which someone waits for.
    static let outside = InputMix(rawValue: 2)
    static let both: InputMix = [.own, .outside]

    /// The part of a batch's outputs the next batch, of mix `open`, takes in while one of mix
    /// `committing` commits: all of it (1), as whole batches commit fastest, unless fan-out work
    /// and inputs from outside mix across the two: then an eighth (8), since what the next batch
    /// holds when the commit ends is the head start of its own commit, which a send taken
    /// meanwhile waits for.
    static func overlapShare(committing: InputMix, open: InputMix) -> Int {
        committing.union(open) == .both ? 8 : 1
    }
}

extension OpenBatch {
    /// The kinds of input the batch holds, `stateTopic` being the worker's own.
    func inputMix(stateTopic: String) -> InputMix {
        var mix = InputMix()
        for partition in offsets.keys {
            mix.insert(partition.topic == stateTopic ? .own : .outside)
            if mix == .both { break }
        }
        return mix
    }
}
