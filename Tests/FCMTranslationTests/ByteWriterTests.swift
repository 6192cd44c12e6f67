import Testing

@testable import FCMTranslation

/// `ByteWriter` copies short runs with word moves of its own, and grows past its scratch memory.
@Suite("Byte writer")
struct ByteWriterTests {
    @Test("runs of every length up to 40 bytes, one after another, come out as they went in")
    func everyLength() {
        let runs = (0...40).map { length in (0..<length).map { UInt8(truncatingIfNeeded: length &* 31 &+ $0) } }
        var output = ByteWriter(capacity: 16)
        for run in runs { output.append(run) }
        #expect(output.bytes == runs.flatMap { $0 })
    }

    @Test("written in scratch memory, and past it into memory of its own")
    func outgrowsScratch() {
        let start: [UInt8] = Array("in scratch".utf8)
        let run = (0..<100).map { UInt8($0) }
        let bytes = ByteWriter.array(scratchCapacity: 64) { output in
            output.append(start)
            for _ in 0..<3 { output.append(run) }
        }
        #expect(bytes == start + run + run + run)
    }

    @Test(
        "byte order of names is UTF-8 byte order, across and within words",
        arguments: [
            ("a", "b"), ("a", "ab"), ("abcdefgh", "abcdefgi"), ("abcdefgh", "abcdefghi"), ("abcdefghij", "abcdefgz"),
            ("\u{7F}", "\u{80}"), ("zzzzzzzz\u{01}", "zzzzzzzz\u{FF}"), ("", "a"),
            // Words that differ in more than one byte: only the first difference may decide.
            ("apns-expiration", "apns-priority"), ("abcdefgz", "abcdefhz"),
        ] as [(String, String)])
    func nameOrder(_ smaller: String, _ larger: String) throws {
        // A NUL after each text, so that even an empty one has an address.
        try (Array(smaller.utf8) + [0]).withUnsafeBytes { left in
            try (Array(larger.utf8) + [0]).withUnsafeBytes { right in
                let a = ByteSpan(start: try #require(left.baseAddress), count: left.count - 1, isPlain: true)
                let b = ByteSpan(start: try #require(right.baseAddress), count: right.count - 1, isPlain: true)
                #expect(a < b && !(b < a) && !(a < a))
            }
        }
    }
}
