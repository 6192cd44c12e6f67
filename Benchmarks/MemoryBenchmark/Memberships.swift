import BridgeCore

/// Resident memory per topic membership, for the two views: each topic's members (the topic's
/// state partition) and each device's own topics (the device's). `devices` devices join
/// `perDevice` topics each; every membership's token is a string of its own, as decoding
/// records makes them. The baseline, in the same run: the tokens' bytes alone, one array each.
enum Memberships {
    static let partitions: Int32 = 8

    static func topic(_ index: Int) -> String { "topic-\(index)" }

    /// The topics' view: every (topic, member) pair.
    static func measureMembers(devices: Int, perDevice: Int) -> String {
        var states = DeviceStates()
        for partition in 0..<partitions { states.adopt(partition) }
        let before = MemoryBenchmark.residentBytes()
        var tokenBytes = 0
        for round in 0..<perDevice {
            for device in 0..<devices {
                let token = MemoryBenchmark.token(device)
                tokenBytes += token.utf8.count
                states.apply(
                    .member(topic: topic(round), token: token, isMember: true), in: Int32(round) % partitions)
            }
        }
        let after = MemoryBenchmark.residentBytes()
        precondition(states.topics.membershipCount == devices * perDevice)
        return "\(after - before) \(tokenBytes)"
    }

    /// The devices' view: every topic in a device's own set.
    static func measureDeviceTopics(devices: Int, perDevice: Int) -> String {
        var states = DeviceStates()
        for partition in 0..<partitions { states.adopt(partition) }
        let tokens = (0..<devices).map(MemoryBenchmark.token)  // made before: not counted
        let before = MemoryBenchmark.residentBytes()
        for round in 0..<perDevice {
            for device in 0..<devices {
                states.apply(
                    .deviceTopic(token: tokens[device], topic: topic(round), isSubscribed: true),
                    in: Int32(device) % partitions)
            }
        }
        let after = MemoryBenchmark.residentBytes()
        return "\(after - before) 0"
    }

    /// The baseline: each membership's token bytes in an array of its own.
    static func measureTokens(devices: Int, perDevice: Int) -> String {
        let before = MemoryBenchmark.residentBytes()
        var held: [[UInt8]] = []
        held.reserveCapacity(devices * perDevice)
        for _ in 0..<perDevice {
            for device in 0..<devices { held.append(Array(MemoryBenchmark.token(device).utf8)) }
        }
        let after = MemoryBenchmark.residentBytes()
        return "\(after - before) \(held.reduce(0) { $0 + $1.count })"
    }

    static func report(devices: Int, perDevice: Int) throws {
        let pairs = Double(devices * perDevice)
        let members = try MemoryBenchmark.child("members", devices, perDevice)
        let deviceTopics = try MemoryBenchmark.child("device-topics", devices, perDevice)
        let tokens = try MemoryBenchmark.child("tokens", devices, perDevice)
        let tokenBytes = members.payload / pairs
        print(
            "\(devices) devices x \(perDevice) topics (\(Int(pairs)) memberships), tokens of \(Int(tokenBytes)) bytes")
        print("")
        print("| measure | bytes per membership |")
        print("|---|---|")
        print(String(format: "| baseline: RSS holding each token's bytes alone | %.0f |", tokens.resident / pairs))
        print(String(format: "| topics' view: RSS of the members | %.0f |", members.resident / pairs))
        print(
            String(
                format: "| topics' view beyond the token (target <= 64) | %.0f |", members.resident / pairs - tokenBytes
            ))
        print(
            String(
                format: "| devices' view: RSS per topic in a device's set (target <= 16) | %.0f |",
                deviceTopics.resident / pairs))
    }
}
