import ArgumentParser
import BridgeConfig
import Foundation
import Kafka

/// The `fcm-bridge` command.
@main
struct FCMBridge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-bridge",
        abstract: "FCM send requests in, APNs-ready messages out, on your own Kafka.",
        version: "fcm-bridge \(BridgeVersion.current) (librdkafka \(Librdkafka.version))",
        subcommands: [
            RunCommand.self, ValidateConfigCommand.self, TopicsCommand.self, WatchCommand.self, GatewayCommand.self,
            DemoCommand.self, TranslateCommand.self, SmokeCommand.self,
        ]
    )
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
