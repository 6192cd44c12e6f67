import Foundation
import Hummingbird

extension GatewayRoutes {
    /// `GET .../registrations/{registration}/topicSubscriptions`: the device's topics, from the
    /// worker that holds its state (``StateOwners``), as `{"topicSubscriptions": [{"name"}]}`.
    func listSubscriptions(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let (project, token, topics) = try await subscriptions(request, context: context)
        struct Subscription: Encodable { var name: String }
        let list = topics.map { Subscription(name: Self.subscriptionName(project: project, token: token, topic: $0)) }
        return Self.json(encoding: ["topicSubscriptions": list])
    }

    /// `GET .../registrations/{registration}/topicSubscriptions/{topic}`: the subscription, or
    /// `404 NOT_FOUND` when the device is not subscribed.
    func getSubscription(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let (project, token, topics) = try await subscriptions(request, context: context)
        let topic = try topicName(try Self.pathParameter("topic", in: context))
        guard topics.contains(topic) else {
            throw GoogleError.notFound("Registration \(token) is not subscribed to topic \(topic).")
        }
        return Self.json(encoding: ["name": Self.subscriptionName(project: project, token: token, topic: topic)])
    }

    /// `GET /iid/info/{token}` (Instance ID's): `{"platform": "IOS"}`, with `details=true` and
    /// the device's topics as `{"rel": {"topics": {"news": {}}}}` (the bridge keeps no `addDate`).
    func info(_ request: Request, context: BasicRequestContext) async throws -> Response {
        _ = try await caller(of: request, sendingFor: nil)
        let token = try registration(in: context)
        struct Info: Encodable {
            struct Relations: Encodable { var topics: [String: [String: String]] }
            var platform = "IOS"
            var rel: Relations?
        }
        var info = Info()
        if request.uri.queryParameters.get("details") == "true" {
            let topics = try await owners(asking: token)
            info.rel = Info.Relations(
                topics: Dictionary(topics.map { ($0, [:]) }, uniquingKeysWith: { first, _ in first }))
        }
        return Self.json(encoding: info)
    }

    /// The project, the registration and its topics, for a caller allowed the project.
    private func subscriptions(
        _ request: Request, context: BasicRequestContext
    ) async throws -> (ProjectID, String, [String]) {
        let project = try await admittedProject(of: request, context: context)
        let token = try registration(in: context)
        return (project, token, try await owners(asking: token))
    }

    private func owners(asking token: String) async throws -> [String] {
        guard let owners else {
            throw GoogleError(
                .notImplemented, code: "UNIMPLEMENTED",
                "This gateway knows no workers to ask (fcm-bridge gateway --workers).")
        }
        return try await owners.topics(of: token)
    }
}
