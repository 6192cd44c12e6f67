extension Array {
    /// Reverses the elements by moving them, where `reverse()` copies each (a retain and a
    /// release of what it holds).
    mutating func reverseByMoving() {
        withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var (low, high) = (0, buffer.count - 1)
            while low < high {
                let element = (base + low).move()
                (base + low).moveInitialize(from: base + high, count: 1)
                (base + high).initialize(to: element)
                (low, high) = (low + 1, high - 1)
            }
        }
    }
}
