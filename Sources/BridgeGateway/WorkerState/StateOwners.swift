import AsyncHTTPClient
import BridgeConfig
import BridgeCore
import Foundation
import NIOCore
import Synchronization

/// Where devices' state is served, found as Kafka Streams' interactive queries find it: each
/// worker answers on its operations endpoint for the devices of the state partitions it holds,
/// and says of any other device which partition it is in (421). Those answers teach the gateway
/// which worker holds which partition; a question goes to the worker last seen holding the
/// device's partition, and to every worker when that one no longer does (after a rebalance).
public final class StateOwners: Sendable {
    /// The workers' operations endpoints: each host may name many (a headless Service).
    let workers: [HTTPAddress]
    let client: HTTPClient
    /// How many times every worker is asked before the gateway gives up (a rebalance under way).
    static let rounds = 3
    static let pause = Duration.seconds(1)
    static let timeout = TimeAmount.seconds(7)
    /// RFC 3986's unreserved characters, ASCII only: a token's others are percent-encoded.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private struct Known {
        var partitions: Int32?
        var owners: [Int32: String] = [:]
    }

    private let known = Mutex(Known())

    /// Owners asked at `workers`, through `client`.
    public init(workers: [HTTPAddress], client: HTTPClient = .shared) {
        self.workers = workers
        self.client = client
    }

    private enum Answer {
        case topics([String], partition: Int32, partitions: Int32)
        case elsewhere(partition: Int32, partitions: Int32)
    }

    /// The topics of `token`'s device, from the worker that holds its state; Google's 503 when
    /// no worker answers for it (restoring, or being moved).
    public func topics(of token: String) async throws(GoogleError) -> [String] {
        for round in 0..<Self.rounds {
            if round > 0 { try? await Task.sleep(for: Self.pause) }
            if let owner = owner(of: token), case .topics(let topics, _, _)? = await ask(owner, about: token) {
                return topics
            }
            let endpoints = await WorkerAddresses.resolve(workers)
            let topics = await withTaskGroup(of: [String]?.self, returning: [String]?.self) { group in
                for endpoint in endpoints {
                    group.addTask {
                        guard case .topics(let topics, _, _)? = await self.ask(endpoint, about: token) else {
                            return nil
                        }
                        return topics
                    }
                }
                for await answer in group {
                    guard let answer else { continue }
                    group.cancelAll()
                    return answer
                }
                return nil
            }
            if let topics { return topics }
        }
        throw GoogleError.unavailable("No worker answers for this registration's state now; try again.")
    }

    private func owner(of token: String) -> String? {
        known.withLock { known in
            known.partitions.flatMap { known.owners[Murmur2Partitioner.partition(of: token.utf8, partitions: $0)] }
        }
    }

    /// Asks the worker at `endpoint` (`host:port`), and learns from its answer.
    private func ask(_ endpoint: String, about token: String) async -> Answer? {
        let path = token.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? token
        let request = HTTPClientRequest(url: "http://\(endpoint)/state/devices/\(path)/topics")
        struct Body: Decodable {
            var partition: Int32
            var partitions: Int32
            var topics: [String]?
        }
        guard let response = try? await client.execute(request, timeout: Self.timeout),
            response.status == .ok || response.status == .misdirectedRequest,
            let bytes = try? await response.body.collect(upTo: 16 * 1024 * 1024),
            let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: bytes)), body.partitions > 0
        else { return nil }
        known.withLock { known in
            if known.partitions != body.partitions { known = Known(partitions: body.partitions) }
            if body.topics != nil {
                known.owners[body.partition] = endpoint
            } else if known.owners[body.partition] == endpoint {
                known.owners[body.partition] = nil
            }
        }
        if let topics = body.topics { return .topics(topics, partition: body.partition, partitions: body.partitions) }
        return .elsewhere(partition: body.partition, partitions: body.partitions)
    }
}
