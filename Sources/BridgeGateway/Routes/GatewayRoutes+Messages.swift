import FCMTranslation
import Foundation
import Hummingbird
import Kafka
import NIOCore

extension GatewayRoutes {
    /// `POST /v1/projects/{project}/messages:send`: checked as the workers check it, answered
    /// 400 in FCM's form when they would reject it; `validate_only` answered without a record;
    /// else produced to the send topic, keyed by its device, and answered with the name whose
    /// last part is the `message_id` of the statuses: `<partition>:<offset>:0`.
    func send(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let project = try await admittedProject(of: request, context: context)
        let body = try await self.body(of: request)
        let bytes = Array(buffer: body)
        let decoded: SendRequest
        switch RequestDecoder.decode(bytes) {
        case .success(let request) where request.format == .v1:
            decoded = request
        case .success:
            throw GoogleError.invalidArgument(#"Invalid JSON payload received. The body must be {"message": {...}}."#)
        case .failure(let rejection):
            throw GoogleError.invalidArgument(rejection.detail)
        }
        let time = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        if let rejection = intake.rejection(of: decoded, time: time) {
            throw GoogleError.invalidArgument(rejection.detail)
        }
        if decoded.validateOnly {
            return Self.named(project: project, id: "fake_message_id")
        }
        let key = decoded.tokens.first.map { ByteBuffer(string: $0) }
        let report = try await produce(ProducerRecord(topic: topics.send, key: key, value: body))
        guard report.offset >= 0 else { throw GoogleError.unavailable("The request's record has no offset.") }
        return Self.named(project: project, id: "\(report.partition):\(report.offset):0")
    }

    /// `{"name": "projects/<project>/messages/<id>"}`, written directly: both parts are plain
    /// (a checked project id, an id of digits and colons), and an encoder cost a tenth of a send.
    private static func named(project: ProjectID, id: String) -> Response {
        json(.ok, Data(#"{"name":"projects/\#(project.text)/messages/\#(id)"}"#.utf8))
    }
}
