import Foundation
import PropertyBased
import Testing

@testable import BridgeStore

/// A stored record's checksum changes with any byte of any of its fields, and tells apart what
/// the fields' boundaries and absences tell apart.
@Suite("Stored records' checksums")
struct RecordChecksumTests {
    typealias Record = (key: [UInt8], value: [UInt8], time: Int64?, collapseKey: [UInt8]?, expiresAt: [UInt8]?)

    static func checksum(_ record: Record) -> Int64 {
        func lend(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> Int64) -> Int64 {
            guard let bytes else { return body(nil) }
            return bytes.withUnsafeBytes { body($0) }
        }
        return record.key.withUnsafeBytes { key in
            record.value.withUnsafeBytes { value in
                lend(record.collapseKey) { collapseKey in
                    lend(record.expiresAt) { expiresAt in
                        RecordChecksum.of(
                            key: key, value: value, time: record.time, collapseKey: collapseKey, expiresAt: expiresAt)
                    }
                }
            }
        }
    }

    @Test(
        "checksums are what the doc comment's algorithm gives (computed apart from this code): they are on disk",
        arguments: [
            (
                (Array("d a".utf8), Array("{}".utf8), 1_700_000_000_000, nil, Array("1".utf8)) as Record,
                Int64(-8_690_780_924_185_875_902)
            ),
            (
                (
                    Array("device-token-0123456789".utf8),
                    Array(#"{"apns":{"payload":{"aps":{"alert":"hello"}}},"kind":"message"}"#.utf8), -5,
                    Array("news".utf8), nil
                ),
                -8_403_011_937_161_795_816
            ),
        ])
    func known(record: Record, checksum: Int64) {
        #expect(Self.checksum(record) == checksum)
    }

    static func record(
        _ key: String, _ value: [UInt8], time: Int64? = nil, collapseKey: [UInt8]? = nil, expiresAt: [UInt8]? = nil
    ) -> Record {
        (Array(key.utf8), value, time, collapseKey, expiresAt)
    }

    static let pairs: [(Record, Record)] = [
        (record("ab", Array("c".utf8)), record("a", Array("bc".utf8))),
        (record("k", []), record("k", [], time: 0)),
        (record("k", []), record("k", [], collapseKey: [])),
        (record("k", [], collapseKey: []), record("k", [], expiresAt: [])),
        (record("k", [0]), record("k", [0, 0])),
    ]

    @Test("boundaries and absences are part of what is summed", arguments: pairs)
    func delimited(a: Record, b: Record) {
        #expect(Self.checksum(a) != Self.checksum(b))
    }

    @Test("any one byte changed in any field changes the checksum")
    func anyByteChanged() async {
        let bytes = Gen.int(in: 0...255).array(of: 0...40).map { (values: [Int]) in values.map { UInt8($0) } }
        await propertyCheck(
            count: 2000, input: bytes, bytes, bytes, Gen.int(in: 0...2), Gen.int(in: 0...1000), Gen.int(in: 1...255)
        ) { key, value, header, field, position, delta in
            let record: Record = (key, value, 42, header, nil)
            var changed = record
            let fields = [key, value, header]
            guard !fields[field].isEmpty else { return }
            let index = position % fields[field].count
            var bytes = fields[field]
            bytes[index] = bytes[index] &+ UInt8(delta)
            switch field {
            case 0: changed.key = bytes
            case 1: changed.value = bytes
            default: changed.collapseKey = bytes
            }
            #expect(Self.checksum(record) != Self.checksum(changed))
        }
    }
}
