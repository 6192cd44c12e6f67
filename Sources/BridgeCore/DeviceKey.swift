/// A device token as a dictionary key: equal and hashed by its UTF-8 bytes. `String`'s own
/// equality is canonical equivalence, under which two different tokens (a composed and a
/// decomposed "é") would share one device.
struct DeviceKey: Hashable, Sendable {
    let token: String

    static func == (lhs: DeviceKey, rhs: DeviceKey) -> Bool {
        // Over the contiguous bytes of native strings (every token read from a record): a
        // String.UTF8View compared element by element costs several times more.
        let contiguous = lhs.token.utf8.withContiguousStorageIfAvailable { left in
            rhs.token.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && left.elementsEqual(right)
            }
        }
        return (contiguous ?? nil) ?? (lhs.token.utf8.count == rhs.token.utf8.count && lhs.token.utf8.elementsEqual(rhs.token.utf8))
    }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = token.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(token.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
