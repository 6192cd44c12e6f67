import AsyncHTTPClient
import FCMBridgeClient
import Foundation
import NIOCore
import NIOHTTP1

/// The app server's webhook: POSTs an event's JSON, signed in the Standard Webhooks form with
/// every secret (none: unsigned), and says what came back. Redirects are not followed (a POST
/// redirected would arrive as a GET without its body). Call ``shutdown()`` when done.
public struct Webhook: Sendable {
    /// The most of an answer's body kept for the log and the parking topic.
    public static let detailBytes = 4096

    /// The webhook's address.
    public let url: String
    let secrets: [WebhookSecret]
    let timeout: Duration
    private let client: HTTPClient

    /// POSTs to `url`, signed with `secrets`, each attempt given `timeout`.
    public init(url: String, secrets: [WebhookSecret], timeout: Duration = .seconds(30)) {
        self.url = url
        self.secrets = secrets
        self.timeout = timeout
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The address without what may be a credential (user information, query, fragment): for
    /// log lines.
    public var redactedURL: String {
        guard var components = URLComponents(string: url) else { return "(unreadable URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "(unreadable URL)"
    }

    /// How many secrets sign each POST (0: unsigned).
    public var secretCount: Int { secrets.count }

    /// Closes the webhook's connections.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// One attempt to deliver `body` as event `id`. Never throws: a failure to reach the
    /// webhook is an answer without a status.
    public func post(id: String, body: [UInt8], now: Date = Date()) async -> WebhookAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        // The id under its earlier name, for receivers that dedupe by it.
        request.headers.add(name: "X-FCM-Bridge-Event", value: id)
        if secrets.isEmpty {
            request.headers.add(name: WebhookSignature.idHeader, value: id)
        } else {
            for header in WebhookSignature.headers(
                id: id, timestamp: Int64(now.timeIntervalSince1970), body: body, secrets: secrets)
            {
                request.headers.add(name: header.name, value: header.value)
            }
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            var answer = (try? await response.body.collect(upTo: Self.detailBytes * 16)) ?? ByteBuffer()
            let text = answer.readString(length: min(answer.readableBytes, Self.detailBytes)) ?? ""
            let retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.parse($0) }
            let detail = "HTTP \(response.status.code)" + (text.isEmpty ? "" : " \(text)")
            return WebhookAnswer(status: Int(response.status.code), detail: detail, retryAfter: retryAfter)
        } catch {
            return WebhookAnswer(status: nil, detail: "\(error)")
        }
    }
}
