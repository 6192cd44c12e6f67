import PropertyBased
import Testing

@testable import FCMTranslation

/// The one-pass field table of ``FieldReader`` reads what a search of the object's members in
/// document order reads: the last member of a name, absent when that one is null, and the first
/// unknown name in byte order.
@Suite("Field reader")
struct FieldReaderTests {
    static func reader<Field>(_ json: String, _: Field.Type) throws -> FieldReader<Field> {
        let document = try JSONDocument(parsing: Array(json.utf8))
        return FieldReader(document: document, object: document.root, path: .root)
    }

    /// A field's value as JSON, or nil: what the reader gives.
    static func read(_ reader: borrowing FieldReader<LegacyField>, _ field: LegacyField) -> String? {
        reader.value(field).map { reader.document.value($0).jsonString }
    }

    @Test(
        "table",
        arguments: [
            (#"{"to":"a","priority":"high"}"#, LegacyField.to, #""a""# as String?),
            (#"{"to":"a","to":"b"}"#, .to, #""b""#),
            (#"{"to":"a","to":null}"#, .to, nil),
            (#"{"to":null,"to":"b"}"#, .to, #""b""#),
            (#"{"to":null}"#, .to, nil),
            (#"{"tox":"a","t":"b"}"#, .to, nil),
            (#"{"time_to_live":60,"to":"a"}"#, .timeToLive, "60"),
            (#"{"registration_ids":["a"],"data":{"to":"x"}}"#, .to, nil),
            (#"{"t\u006f":"a"}"#, .to, #""a""#),
            (#"{}"#, .collapseKey, nil),
        ])
    func table(json: String, field: LegacyField, expected: String?) throws {
        #expect(Self.read(try Self.reader(json, LegacyField.self), field) == expected)
    }

    @Test(
        "unknown fields: the first in byte order is named",
        arguments: [
            (#"{"message":{},"validate_only":true}"#, nil as String?),
            (#"{"message":{},"zeta":1,"alpha":2}"#, "alpha"),
            (#"{"b":1,"a":1,"ab":1}"#, "a"),
            (#"{"\u00e9":1,"z":1}"#, "z"),
            (#"{"messages":1}"#, "messages"),
        ])
    func unknown(json: String, expected: String?) throws {
        let reader = try Self.reader(json, V1RequestField.self)
        let thrown = Result { () throws(Rejection) in try reader.onlyKnown() }.failure
        #expect(thrown == expected.map { Rejection(.invalidArgument, "\($0): unknown field") })
    }

    @Test("every field set fits the reader's table")
    func fieldSetsFit() {
        func count<Field: FieldName>(_: Field.Type) -> Int {
            var raw = 0
            while Field(rawValue: raw) != nil { raw += 1 }
            return raw
        }
        let counts = [
            count(V1RequestField.self), count(V1MessageField.self), count(V1NotificationField.self),
            count(V1OptionsField.self),
            count(APNsField.self), count(APNsOptionsField.self), count(APNsPayloadField.self), count(LegacyField.self),
            count(LegacyNotificationField.self), count(NoFields.self),
        ]
        #expect(counts.allSatisfy { $0 <= FieldReader<NoFields>.maximumFields })
    }

    @Test("random objects read as a search of their members does")
    func randomObjects() async {
        let names = ["to", "priority", "dry_run", "t", "tо", "time_to_live", "zz", "a"]
        let values = ["null", "1", #""x""#, "[]", "{}"]
        // A member is a name and a value, drawn as one number.
        let member = Gen.int(in: 0...(names.count * values.count - 1)).map { ($0 / values.count, $0 % values.count) }
        await propertyCheck(count: 500, input: member.array(of: 0...12)) { members in
            let json = "{" + members.map { "\"\(names[$0.0])\":\(values[$0.1])" }.joined(separator: ",") + "}"
            guard let reader = try? Self.reader(json, LegacyField.self) else {
                Issue.record("\(json) did not parse")
                return
            }
            for field in [LegacyField.to, .priority, .dryRun, .timeToLive] {
                let last = members.last { names[$0.0] == field.name.description }.map { values[$0.1] }
                #expect(Self.read(reader, field) == (last == "null" ? nil : last), "\(json) \(field)")
            }
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
