/// The known name a misspelt one most likely meant, for "did you mean" hints.
enum ClosestName {
    /// The name among `known` fewest single-character edits away from `name`, when few enough
    /// to be a slip (a third of its length, at most 3); nil when none is.
    static func to(_ name: String, among known: some Sequence<String>) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        // Longer names are no key's typo; the bound also keeps the work small for any input.
        guard typed.count <= 100 else { return nil }
        let limit = min(3, max(1, typed.count / 3))
        var best: (name: String, distance: Int)? = nil
        for candidate in known where candidate != name {
            let distance = editDistance(typed, Array(candidate.lowercased().unicodeScalars))
            if distance <= limit, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein's distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var previous = Array(0...b.count)
        var current = previous
        for (i, x) in a.enumerated() {
            current[0] = i + 1
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
