import BridgeHealth
import Foundation
import Hummingbird
import NIOCore

/// The worker's answer about a device's topics, as JSON: `{"partition": P, "partitions": N,
/// "topics": [...]}` from the worker holding the device's state partition (200), the same
/// without `topics` from the others (421, Misdirected Request), so that the asker learns where
/// to go, or 503 when the loop did not answer in time (restoring, or stuck).
struct DeviceTopicsAnswer {
    let answer: StateQueries.Answer

    init(_ answer: StateQueries.Answer) {
        self.answer = answer
    }

    var response: Response {
        struct Body: Encodable {
            var partition: Int32
            var partitions: Int32
            var topics: [String]?
        }
        let (status, body): (HTTPResponse.Status, Body?) =
            switch answer {
            case .topics(let topics, let partition, let partitions):
                (.ok, Body(partition: partition, partitions: partitions, topics: topics))
            case .elsewhere(let partition, let partitions):
                (.misdirectedRequest, Body(partition: partition, partitions: partitions))
            case .unanswered:
                (.serviceUnavailable, nil)
            }
        guard let body, let json = try? JSONEncoder().encode(body) else {
            return text(status, "the worker's loop did not answer in time\n")
        }
        return Response(
            status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: json))
        )
    }
}
