import ArgumentParser

/// The `fcm-bridge` command.
@main
struct FCMBridge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-bridge",
        abstract: "FCM send requests in, APNs-ready messages out, on your own Kafka.",
        subcommands: [RunCommand.self, DemoCommand.self, TranslateCommand.self, SmokeCommand.self]
    )
}
