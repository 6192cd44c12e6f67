import BridgeCore
import Foundation
import NIOCore

/// One record of a fixture, as a JSON line: bytes in base64.
public struct FixtureRecord: Codable, Sendable {
    public var topic: String
    public var partition: Int32
    public var key: Data?
    public var value: Data?
    public var timestamp: Int64?
    public var headers: [String: String]

    public init(_ record: InMemoryRecord, topic: String) {
        self.topic = topic
        partition = record.partition
        key = record.key.map { Data($0.readableBytesView) }
        value = record.value.map { Data($0.readableBytesView) }
        timestamp = record.createTime
        headers = record.headers
    }

    public func record(topic name: String) -> InMemoryRecord {
        InMemoryRecord(
            topic: name, partition: partition, key: key.map { ByteBuffer(bytes: $0) },
            value: value.map { ByteBuffer(bytes: $0) }, createTime: timestamp, headers: headers)
    }
}

extension FixtureRecord {
    /// The upgrade fixtures' folder, `Tests/Fixtures/upgrade`.
    public static let upgradeFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/upgrade")

    /// The changelog records of the oldest upgrade fixture, in the order they were written.
    public static func upgradeChangelog() throws -> [FixtureRecord] {
        let names = try FileManager.default.contentsOfDirectory(atPath: upgradeFixtures.path)
        guard let name = names.filter({ $0.hasSuffix(".jsonl") }).sorted().first else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try read(upgradeFixtures.appendingPathComponent(name)).filter { $0.topic == "changelog" }
    }

    /// The records of a fixture file, one JSON line each.
    public static func read(_ url: URL) throws -> [FixtureRecord] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(FixtureRecord.self, from: Data($0.utf8)) }
    }
}
