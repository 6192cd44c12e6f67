/// The devices a request targets, in order: one token (nearly every request) without an array's
/// allocation, or a legacy multicast's list.
public struct DeviceTokens: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
        case one(String)
        case list([String])
    }

    private let storage: Storage

    /// One device.
    public init(_ token: String) {
        storage = .one(token)
    }

    /// Devices in order.
    public init(_ tokens: [String]) {
        if tokens.count == 1, let token = tokens.first { storage = .one(token) } else { storage = .list(tokens) }
    }

    /// Devices in order, as a literal.
    public init(arrayLiteral tokens: String...) {
        self.init(tokens)
    }

    /// The first device's position, 0.
    public var startIndex: Int { 0 }

    /// One past the last device's position: the number of devices.
    public var endIndex: Int {
        switch storage {
        case .one: 1
        case .list(let tokens): tokens.count
        }
    }

    /// The device at `position`, which must be in `startIndex..<endIndex` (as for any collection;
    /// a list of one answers its token for any position).
    public subscript(position: Int) -> String {
        switch storage {
        case .one(let token): token
        case .list(let tokens): tokens[position]
        }
    }

    /// The same devices in the same order, however they are held.
    public static func == (left: DeviceTokens, right: DeviceTokens) -> Bool { left.elementsEqual(right) }

    /// Hashes the devices in order, as ``==`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for token in self { hasher.combine(token) }
    }
}
