import BridgeCore
import Foundation
import Hummingbird
import Kafka
import Logging
import NIOCore

/// The part of FCM's server API an app server uses, over the contract's topics: sends to the
/// send topic, topic management to the subscriptions topic, and Google's token endpoint. Every
/// record is answered only once the broker has it (idempotent producer, `acks=all`).
public struct GatewayRoutes: Sendable {
    /// Where the records go.
    public struct Topics: Sendable {
        public var send: String
        public var subscriptions: String

        public init(send: String, subscriptions: String) {
            self.send = send
            self.subscriptions = subscriptions
        }
    }

    let authority: TokenAuthority
    let intake: SendIntake
    let producer: KafkaProducer
    let topics: Topics
    /// The largest request body read; a larger one is answered 413.
    let maximumBodyBytes: Int
    let rates: SendRates
    let metrics: GatewayMetrics
    /// Where devices' state is asked for; nil when no workers are configured.
    let owners: StateOwners?
    let logger: Logger
    let now: @Sendable () -> Date

    /// Routes producing with `producer` to `topics`, checking sends with `intake`, asking
    /// `owners` for devices' state.
    public init(
        authority: TokenAuthority, intake: SendIntake, producer: KafkaProducer, topics: Topics,
        maximumBodyBytes: Int, rates: SendRates, metrics: GatewayMetrics, owners: StateOwners?, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.authority = authority
        self.intake = intake
        self.producer = producer
        self.topics = topics
        self.maximumBodyBytes = maximumBodyBytes
        self.rates = rates
        self.metrics = metrics
        self.owners = owners
        self.logger = logger
        self.now = now
    }

    /// The router: every route answers errors in Google's form.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("token") { request, _ in await measured("token") { try await token(request) } }
        router.post("v1/projects/:project/messages:send") { request, context in
            await measured("send") { try await send(request, context: context) }
        }
        let subscriptions = "v1/projects/:project/registrations/:registration/topicSubscriptions"
        router.post(RouterPath(subscriptions)) { request, context in
            await measured("subscribe") {
                try await subscribe(request, context: context, topic: request.uri.queryParameters.get("topic_name"))
            }
        }
        router.patch(RouterPath(subscriptions + "/:topic")) { request, context in
            // An update with allowMissing creates it; a subscription has nothing else to update.
            await measured("subscribe") {
                try await subscribe(request, context: context, topic: try Self.pathParameter("topic", in: context))
            }
        }
        router.delete(RouterPath(subscriptions + "/:topic")) { request, context in
            await measured("unsubscribe") {
                try await unsubscribe(request, context: context)
            }
        }
        router.get(RouterPath(subscriptions)) { request, context in
            await measured("list_subscriptions") { try await listSubscriptions(request, context: context) }
        }
        router.get(RouterPath(subscriptions + "/:topic")) { request, context in
            await measured("get_subscription") { try await getSubscription(request, context: context) }
        }
        router.get("iid/info/:registration") { request, context in
            await measured("iid_info") { try await info(request, context: context) }
        }
        router.post("iid/v1:batchAdd") { request, _ in
            await measured("batch_add") { try await batch(request, action: .subscribe) }
        }
        router.post("iid/v1:batchRemove") { request, _ in
            await measured("batch_remove") { try await batch(request, action: .unsubscribe) }
        }
        return router
    }

    /// Runs a route's handler, answers its error in Google's form, and counts the answer.
    private func measured(_ route: String, _ handler: () async throws -> Response) async -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await handler()
        } catch let error as GoogleError {
            response = Self.answer(error)
        } catch is NIOTooManyBytesError {
            response = Self.answer(
                GoogleError(
                    .contentTooLarge, code: "INVALID_ARGUMENT",
                    "Request payload size exceeds the limit: \(maximumBodyBytes) bytes."))
        } catch {
            logger.error("request failed", metadata: ["route": "\(route)", "error": "\(error)"])
            response = Self.answer(GoogleError(.internalServerError, code: "INTERNAL", "Internal error encountered."))
        }
        metrics.answered(route: route, status: response.status.code, after: ContinuousClock.now - start)
        return response
    }

    /// The caller of `request`, allowed to send for `project` (nil: any project it has).
    func caller(of request: Request, sendingFor project: String?) async throws -> Caller {
        let caller = try await authority.caller(authorization: request.headers[.authorization], now: now()).get()
        if let problem = caller.problem(sendingFor: project) { throw problem }
        if let wait = rates.admit(caller.account.email, at: ContinuousClock.now) {
            throw GoogleError.quotaExceeded(retryAfterSeconds: wait)
        }
        return caller
    }

    /// The project of a `/v1/projects/{project}/...` route, which the caller of `request` may use.
    func admittedProject(of request: Request, context: BasicRequestContext) async throws -> ProjectID {
        let project = try ProjectID(try context.parameters.require("project"))
        _ = try await caller(of: request, sendingFor: project.text)
        return project
    }

    /// The body, at most ``maximumBodyBytes``.
    func body(of request: Request) async throws -> ByteBuffer {
        try await request.body.collect(upTo: maximumBodyBytes)
    }

    /// Produces `record` and waits for the broker; a failure is Google's 503, which SDKs retry.
    func produce(_ record: ProducerRecord) async throws -> DeliveryReport {
        let start = ContinuousClock.now
        let report: DeliveryReport
        do {
            report = try await producer.send(record)
        } catch {
            throw GoogleError.unavailable("The request could not be stored: \(error)")
        }
        metrics.produced(after: ContinuousClock.now - start)
        if let error = report.error { throw GoogleError.unavailable("The request could not be stored: \(error)") }
        return report
    }

    /// A JSON answer of `value`, its keys sorted.
    static func json(_ status: HTTPResponse.Status = .ok, encoding value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return json(status, (try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// The name of `token`'s subscription to `topic` in `project`.
    static func subscriptionName(project: ProjectID, token: String, topic: String) -> String {
        "projects/\(project.text)/registrations/\(token)/topicSubscriptions/\(topic)"
    }

    /// A JSON answer.
    static func json(_ status: HTTPResponse.Status = .ok, _ body: Data) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func answer(_ error: GoogleError) -> Response {
        var response = json(error.status, error.body)
        if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}
