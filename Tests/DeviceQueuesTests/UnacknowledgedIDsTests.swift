import PropertyBased
import Testing

@testable import DeviceQueues

/// A device's unacknowledged ids in their compact form behave as a plain list of strings.
@Suite("Unacknowledged ids")
struct UnacknowledgedIDsTests {
    /// Ids as the bridge makes them (sends, this device's copies, another hash), and others a
    /// changelog could hold: empty, with several slashes, long enough for a two-byte header, one
    /// that starts another, one that is a copy's id without its slash.
    static let ids = [
        "0:12:0", "0:12:00", "0:12:0/00ff00ff00ff00ff0", "00ff00ff00ff00ff", "3:99817:2", "1:5:0/00ff00ff00ff00ff",
        "2:7:0/00ff00ff00ff00ff", "2:8:0/abcdefabcdefabcd", "",
        "/00ff00ff00ff00ff", "a/b/00ff00ff00ff00ff", "/", String(repeating: "x", count: 300),
        String(repeating: "y", count: 70) + "/00ff00ff00ff00ff", "é/00ff00ff00ff00ff",
    ]

    enum Operation {
        case append(String)
        case removeFirst
        case remove(String)
    }

    static let operation = Gen.int(in: 0...(2 * ids.count)).map { choice -> Operation in
        switch choice {
        case ..<ids.count: .append(ids[choice])
        case ids.count: .removeFirst
        default: .remove(ids[(choice - ids.count - 1) % ids.count])
        }
    }

    @Test("any sequence of appends and removals holds exactly what a list of strings would, in order")
    func behavesAsAList() async {
        await propertyCheck(count: 500, input: Self.operation.array(of: 0...80)) { operations in
            var compact = UnacknowledgedIDs()
            var model: [String] = []
            for operation in operations {
                switch operation {
                case .append(let id):
                    compact.append(id)
                    model.append(id)
                case .removeFirst:
                    #expect(compact.removeFirst() == (model.isEmpty ? nil : model.removeFirst()))
                case .remove(let id):
                    let index = model.firstIndex(of: id)
                    #expect(compact.remove(id) == (index != nil))
                    if let index { model.remove(at: index) }
                }
                #expect(compact.all == model && compact.count == model.count && compact.isEmpty == model.isEmpty)
            }
        }
    }

    @Test("equal when the same ids are held, whichever copy came first")
    func equality() {
        var first = UnacknowledgedIDs()
        first.append("1:5:0/00ff00ff00ff00ff")
        first.append("2:8:0/abcdefabcdefabcd")
        var second = UnacknowledgedIDs()
        second.append("9:9:9/abcdefabcdefabcd")
        second.append("1:5:0/00ff00ff00ff00ff")
        second.append("2:8:0/abcdefabcdefabcd")
        #expect(first != second)
        _ = second.removeFirst()
        #expect(first == second && first.hashValue == second.hashValue)
    }
}
