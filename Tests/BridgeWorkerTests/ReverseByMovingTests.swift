import PropertyBased
import Testing

@testable import BridgeWorker

@Suite("Reversing by moving")
struct ReverseByMovingTests {
    /// Strings of over 15 bytes live on the heap: a reference lost or doubled by a move would
    /// crash or corrupt them.
    @Test("the elements end in reverse order, each once, at any count, and a copy keeps its order")
    func reverses() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...40)) { count in
            let strings = (0..<count).map { "a string on the heap, number \($0)" }
            var moved = strings
            moved.reverseByMoving()
            #expect(moved == Array(strings.reversed()))
            #expect(strings == (0..<count).map { "a string on the heap, number \($0)" })
        }
    }
}
