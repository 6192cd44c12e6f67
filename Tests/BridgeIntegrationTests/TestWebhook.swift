import Foundation
import Hummingbird
import Synchronization

/// An app server's webhook in the test process: answers each POST as `answer` says, given the
/// request and the requests before it, and remembers every request.
final class TestWebhook: Sendable {
    /// A request as the webhook received it.
    struct Request: Sendable {
        var headers: [String: String]
        var body: String
        var at: ContinuousClock.Instant
        /// The status it was answered with; 0 while the answer waits out its delay.
        var status = 0
        var id: String { headers["webhook-id"] ?? "" }
    }

    /// An answer: a status, headers, and how long to wait before giving it.
    struct Answer: Sendable {
        var status: HTTPResponse.Status = .ok
        var headers: HTTPFields = [:]
        var delay: Duration = .zero
    }

    private let answer: @Sendable (_ request: Request, _ earlier: [Request]) -> Answer
    private let state = Mutex<(requests: [Request], port: Int?)>(([], nil))

    init(answer: @escaping @Sendable (_ request: Request, _ earlier: [Request]) -> Answer = { _, _ in Answer() }) {
        self.answer = answer
    }

    var requests: [Request] { state.withLock { $0.requests } }

    /// The bodies of the requests answered 2xx, in order.
    var taken: [String] { requests.filter { (200..<300).contains($0.status) }.map(\.body) }

    /// Serves on a free loopback port, in `body`'s scope; `body` gets the webhook's URL.
    func serving<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.post("hook") { request, _ -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let received = Request(headers: headers, body: text, at: .now)
            let (answer, index) = self.state.withLock { state in
                defer { state.requests.append(received) }
                return (self.answer(received, state.requests), state.requests.count)
            }
            try await Task.sleep(for: answer.delay)
            self.state.withLock { $0.requests[index].status = Int(answer.status.code) }
            return Response(status: answer.status, headers: answer.headers)
        }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in self.state.withLock { $0.port = channel.localAddress?.port } })
        let server = Task { try await application.run() }
        defer { server.cancel() }
        while state.withLock({ $0.port }) == nil { try await Task.sleep(for: .milliseconds(20)) }
        return try await body("http://127.0.0.1:\(state.withLock { $0.port } ?? 0)/hook")
    }
}
