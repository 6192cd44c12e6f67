extension RandomAccessCollection {
    /// The first index whose element is not `isBefore` (which holds for a prefix of the
    /// collection and for nothing after it), found by binary search: in a sorted collection,
    /// where an element is or would go.
    func partitionPoint(where isBefore: (Element) -> Bool) -> Index {
        var low = startIndex
        var remaining = count
        while remaining > 0 {
            let half = remaining / 2
            let middle = index(low, offsetBy: half)
            if isBefore(self[middle]) {
                low = index(after: middle)
                remaining -= half + 1
            } else {
                remaining = half
            }
        }
        return low
    }
}
