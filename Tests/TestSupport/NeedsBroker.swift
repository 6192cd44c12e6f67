import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// Skips a suite that needs a broker, saying how to run it, when `KAFKA_BOOTSTRAP_SERVERS`
    /// names none.
    public static var needsBroker: Self {
        .enabled(
            if: TestBroker.bootstrapServers != nil,
            "KAFKA_BOOTSTRAP_SERVERS is not set: run `bash scripts/test.sh`, which starts a local broker"
        )
    }
}
