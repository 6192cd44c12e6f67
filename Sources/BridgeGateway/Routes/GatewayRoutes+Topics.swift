import BridgeCore
import FCMTranslation
import Foundation
import Hummingbird
import Kafka
import NIOCore

extension GatewayRoutes {
    /// `POST .../registrations/{registration}/topicSubscriptions?topic_name=T`: FCM's v1 topic
    /// management, one device at a time, as a subscription record for the device.
    func subscribe(_ request: Request, context: BasicRequestContext, topic: String?) async throws -> Response {
        let project = try await admittedProject(of: request, context: context)
        let token = try registration(in: context)
        guard let topic else { throw GoogleError.invalidArgument("topic_name: a topic name is required.") }
        let name = try topicName(topic)
        try await record(.subscribe, topic: name, tokens: [token])
        return Self.json(encoding: ["name": Self.subscriptionName(project: project, token: token, topic: name)])
    }

    /// `DELETE .../registrations/{registration}/topicSubscriptions/{topic}`: the device's
    /// unsubscription. Answered `{}` whether or not the device was subscribed: the gateway does not
    /// know, so `allow_missing` is always taken as true.
    func unsubscribe(_ request: Request, context: BasicRequestContext) async throws -> Response {
        // Checked for the caller's token and project; the answer names neither.
        _ = try await admittedProject(of: request, context: context)
        let token = try registration(in: context)
        let name = try topicName(try Self.pathParameter("topic", in: context))
        try await record(.unsubscribe, topic: name, tokens: [token])
        return Self.json(.ok, Data("{}".utf8))
    }

    /// `POST /iid/v1:batchAdd` and `:batchRemove` (Instance ID's, which FCM deprecated): one
    /// subscription record for the usable tokens, answered per token as IID does (`{}`, or
    /// `{"error": "INVALID_ARGUMENT"}`).
    func batch(_ request: Request, action: SubscriptionRequest.Action) async throws -> Response {
        _ = try await caller(of: request, sendingFor: nil)
        struct Body: Decodable {
            var to: String
            var registrationTokens: [String]
            enum CodingKeys: String, CodingKey {
                case to
                case registrationTokens = "registration_tokens"
            }
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: try await self.body(of: request)))
        else { return Self.iidError("InvalidArgument: the body must have to and registration_tokens") }
        guard (1...SubscriptionRequest.maximumTokens).contains(body.registrationTokens.count) else {
            return Self.iidError("InvalidArgument: registration_tokens must hold 1 to 1000 tokens")
        }
        guard case .success(let name) = TopicName.validate(body.to) else {
            return Self.iidError("InvalidTopicName")
        }
        let usable = body.registrationTokens.map { SubscriptionRequest.tokenProblem($0) == nil }
        let tokens = zip(body.registrationTokens, usable).filter(\.1).map(\.0)
        if !tokens.isEmpty { try await record(action, topic: name, tokens: tokens) }
        let results = usable.map { $0 ? [String: String]() : ["error": "INVALID_ARGUMENT"] }
        return Self.json(encoding: ["results": results])
    }

    /// Produces the contract's subscription record, checked by the workers' decoder first.
    private func record(_ action: SubscriptionRequest.Action, topic: String, tokens: [String]) async throws {
        struct Body: Encodable {
            var action: String
            var topic: String
            var tokens: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let value = try encoder.encode(Body(action: action.rawValue, topic: topic, tokens: tokens))
        switch SubscriptionRequest.decode(value) {
        case .success(let decoded) where decoded.refused.isEmpty:
            break
        case .success(let decoded):
            throw GoogleError.invalidArgument(decoded.refused.map(\.detail).joined(separator: "; "))
        case .failure(let rejection):
            throw GoogleError.invalidArgument(rejection.detail)
        }
        let key = tokens.count == 1 ? ByteBuffer(string: tokens[0]) : nil
        _ = try await produce(
            ProducerRecord(topic: self.topics.subscriptions, key: key, value: ByteBuffer(data: value)))
    }

    func registration(in context: BasicRequestContext) throws -> String {
        let token = try Self.pathParameter("registration", in: context)
        if let problem = RequestDecoder.tokenProblem(token) {
            throw GoogleError.invalidArgument("registration: \(problem)")
        }
        return token
    }

    func topicName(_ given: String) throws -> String {
        switch TopicName.validate(given) {
        case .success(let name): return name
        case .failure(let problem): throw GoogleError.invalidArgument("topic_name: \(problem)")
        }
    }

    /// A path parameter, percent-decoded (the SDKs quote tokens, whose `:` would split a path).
    static func pathParameter(_ name: String, in context: BasicRequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        guard let decoded = raw.removingPercentEncoding, !decoded.isEmpty else {
            throw GoogleError.invalidArgument("\(name): not a percent-encoded path segment")
        }
        return decoded
    }

    private static func iidError(_ code: String) -> Response {
        json(.badRequest, encoding: ["error": code])
    }
}
