/// The `apns-topic` values of one bundle ID, as the JSON strings the headers hold: escaped once
/// per bundle ID (when the translator is made or its bundle ID set) rather than per message.
struct APNsTopics: Sendable {
    /// The bundle ID: the topic of every push type but Live Activities.
    let app: [UInt8]
    /// The bundle ID with `.push-type.liveactivity`.
    let liveActivity: [UInt8]

    init(bundleID: String) {
        var app = ByteWriter()
        JSONOutput.writeString(bundleID, to: &app)
        self.app = app.bytes
        var liveActivity = ByteWriter()
        JSONOutput.writeString(bundleID + ".push-type.liveactivity", to: &liveActivity)
        self.liveActivity = liveActivity.bytes
    }

    /// The topic of a message of `kind`, as a JSON string.
    func topic(for kind: PushKind) -> [UInt8] { kind == .liveActivity ? liveActivity : app }
}
