import CRDKafka
import Testing

@testable import Kafka

@Suite("Error mapping")
struct KafkaErrorTests {
    @Test(
        "codes map to librdkafka's names",
        arguments: [
            (Int32(10), "MSG_SIZE_TOO_LARGE"),
            (Int32(3), "UNKNOWN_TOPIC_OR_PART"),
            (Int32(36), "TOPIC_ALREADY_EXISTS"),
            (Int32(-185), "_TIMED_OUT"),
            (Int32(-192), "_MSG_TIMED_OUT"),
            (Int32(-186), "_INVALID_ARG"),
            (Int32(-188), "_UNKNOWN_TOPIC"),
        ])
    func names(code: Int32, name: String) {
        let error = KafkaError(code: KafkaError.Code(rawValue: code))
        #expect(error.name == name)
        #expect(error.code.description == name)
        #expect(!error.message.isEmpty)
        #expect(error.description.hasPrefix("\(name) (\(code)): "))
    }

    @Test("the named codes are librdkafka's codes")
    func constants() {
        #expect(KafkaError(code: KafkaError.Code.invalidRecord).name == "INVALID_RECORD")
        #expect(KafkaError(code: KafkaError.Code.queueFull).name == "_QUEUE_FULL")
        #expect(KafkaError(code: KafkaError.Code.fatal).name == "_FATAL")
        #expect(KafkaError(code: KafkaError.Code.policyViolation).name == "POLICY_VIOLATION")
        #expect(KafkaError(code: KafkaError.Code.messageSizeTooLarge).name == "MSG_SIZE_TOO_LARGE")
        #expect(KafkaError(code: KafkaError.Code.unknownTopicOrPartition).name == "UNKNOWN_TOPIC_OR_PART")
        #expect(KafkaError(code: KafkaError.Code.unknownTopic).name == "_UNKNOWN_TOPIC")
        #expect(KafkaError(code: KafkaError.Code.messageTimedOut).name == "_MSG_TIMED_OUT")
        #expect(KafkaError(code: KafkaError.Code.topicAlreadyExists).name == "TOPIC_ALREADY_EXISTS")
        #expect(KafkaError(code: KafkaError.Code.timedOut).name == "_TIMED_OUT")
        #expect(KafkaError(code: KafkaError.Code.invalidArgument).name == "_INVALID_ARG")
    }

    @Test("check() passes success and throws failures with their context")
    func check() throws {
        try KafkaError.check(rd_kafka_resp_err_t(rawValue: 0), "nothing")
        let error = #expect(throws: KafkaError.self) {
            try KafkaError.check(rd_kafka_resp_err_t(rawValue: 10), "send to t")
        }
        #expect(error?.name == "MSG_SIZE_TOO_LARGE")
        #expect(error?.message.hasPrefix("send to t: ") == true)
    }

    @Test("the loaded librdkafka is new enough and says its version")
    func version() throws {
        try Librdkafka.requireMinimumVersion()
        #expect(Librdkafka.version.split(separator: ".").count >= 3)
    }
}
