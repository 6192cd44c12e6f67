import ArgumentParser
import BridgeCore
import FCMTranslation
import Foundation

/// `fcm-bridge translate [FILE]`: prints what a device would receive for an FCM send request.
struct TranslateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "translate",
        abstract: "Translate an FCM send request into APNs headers and payload.",
        discussion: """
            Reads a request (HTTP v1 or legacy JSON) from FILE or standard input and prints
            {"headers": {...}, "payload": {...}} as JSON: one line per device, so a legacy multicast
            prints one line per token. A topic or condition send prints one line, as each of its
            devices receives it; with --token, that device's copy under its own message id
            (<id>/<hash of the token>). A rejected request prints its reason and detail on standard
            error and exits with status 1.
            """
    )

    @Argument(help: "The request file; standard input when absent.")
    var file: String?

    @Option(help: "Translate for this device (token or FID), in place of the request's own target.")
    var token: String?

    @Option(help: "The message id (gcm.message_id). A multicast's tokens get <id>:<index>.")
    var messageID = "0:translate"

    @Option(help: "The send time in milliseconds since the epoch, for apns-expiration (default: now).")
    var sentAt: Int64?

    @Option(help: "The app's bundle id, for apns-topic when the request's headers give none.")
    var bundleID: String?

    @Option(help: "The APNs payload limit in bytes.")
    var payloadLimit = APNsTranslator.defaultPayloadLimit

    func validate() throws {
        guard payloadLimit > 0 else { throw ValidationError("--payload-limit must be positive") }
        if let file, !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("cannot read \(file): no such file, or not readable")
        }
    }

    func run() throws {
        let input: Data
        do {
            input =
                try file.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                ?? FileHandle.standardInput.readDataToEndOfFile()
        } catch {
            printError("cannot read \(file ?? "standard input"): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        let translator = APNsTranslator(bundleID: bundleID, payloadLimit: payloadLimit)
        let sentAt = self.sentAt ?? Int64(Date().timeIntervalSince1970 * 1000)
        var messages: [APNsMessage] = []
        do {
            var request = try RequestDecoder.decode(Self.withTarget(input, token: token)).get()
            if request.topicTarget != nil {
                let id = token.map { MessageID.copy(of: messageID, for: $0) } ?? messageID
                messages.append(try translator.translate(request, messageID: id, sentAt: sentAt).get())
            } else if let token {
                request.tokens = [token]
            }
            for (index, _) in request.tokens.enumerated() {
                let id = request.tokens.count == 1 ? messageID : "\(messageID):\(index)"
                messages.append(try translator.translate(request, messageID: id, sentAt: sentAt).get())
            }
        } catch {
            FileHandle.standardError.write(Data("rejected: \(error)\n".utf8))
            throw ExitCode(1)
        }
        for message in messages {
            print(String(decoding: message.jsonBytes, as: UTF8.self))
        }
    }

    /// With `--token`, a request that names no target of its own gets that token, so that a bare
    /// message can be translated too.
    static func withTarget(_ input: Data, token: String?) -> Data {
        guard let token, case .object(var request)? = try? JSONParser.parse(input) else { return input }
        if case .object(var message)? = request["message"] {
            if ["token", "fid", "topic", "condition"].allSatisfy({ message[$0] == nil }) {
                message["token"] = .string(token)
                request["message"] = .object(message)
            }
        } else if request["to"] == nil && request["registration_ids"] == nil {
            request["to"] = .string(token)
        }
        return Data(JSONValue.object(request).jsonBytes)
    }
}
