/// Writes the APNs payload of a request for one device: `aps`, custom keys from `data`,
/// `fcm_options`, `gcm.message_id` and the v1 `apns.payload` merged over them, members sorted
/// by name, texts copied from the request's bytes. Not copyable: it is made once per
/// translation, and a copy would retain everything the request holds.
struct PayloadWriter: ~Copyable {
    /// A member of the payload's top level, by where its value comes from.
    enum Value {
        /// A `data` entry (left out when null, as FCM drops null data values).
        case data(JSONNodeIndex)
        /// A member of the v1 `apns.payload`, written as it is.
        case node(JSONNodeIndex)
        /// `{"image": ...}`.
        case image(JSONNodeIndex)
        case messageID
        case aps
    }

    /// A member of `aps`.
    enum APSValue {
        /// The `alert` dictionary built from the notification fields.
        case alert
        case integer(Int)
        /// A value of the request, written as it is.
        case node(JSONNodeIndex)
        /// The flag value `1`.
        case one
    }

    // The parts of the request it writes, rather than a copy of the request, which would
    // retain all of its references.
    private let document: JSONDocument
    private let notification: NotificationContent
    private let data: JSONNodeIndex?
    private let image: JSONNodeIndex?
    private let apnsPayload: JSONNodeIndex?
    private let isLiveActivity: Bool
    private let messageID: String
    /// The members of `aps`, after the v1 `apns.payload.aps` keys were merged over them.
    private let aps: SortedMembers<APSValue>

    init(request: borrowing SendRequest, messageID: String) {
        document = request.document
        notification = request.notification
        data = request.data
        image = request.apnsImage ?? request.notification.image
        apnsPayload = request.apnsPayload
        isLiveActivity = request.liveActivityToken != nil
        self.messageID = messageID
        aps = Self.apsMembers(of: request)
    }

    /// Writes the payload; returns where the message id's characters were written (nil when
    /// the v1 `apns.payload` gave its own `gcm.message_id`), so that a fan-out can give each
    /// device's copy its own id in place.
    @discardableResult
    func write(to output: inout ByteWriter) -> Range<Int>? {
        var idRange: Range<Int>?
        var members = SortedMembers<Value>()
        if let data {
            for (key, value) in document.members(of: data) { members.add(document.name(key), .data(value)) }
        }
        if let image { members.add(Names.fcmOptions, .image(image)) }
        members.add(Names.messageID, .messageID)
        if let payload = apnsPayload {
            for (key, value) in document.members(of: payload) where !document.name(key, equals: "aps") {
                members.add(document.name(key), .node(value))
            }
        }
        members.add(Names.aps, .aps)
        members.sort()
        members.write(to: &output) { value, output in
            switch value {
            case .data(let node):
                guard document[node].kind != .null else { return false }
                document.write(node, to: &output)
            case .node(let node):
                document.write(node, to: &output)
            case .image(let node):
                output.append(#"{"image":"#)
                document.write(node, to: &output)
                output.append(UInt8(ascii: "}"))
            case .messageID:
                let start = output.count
                JSONOutput.writeString(messageID, to: &output)
                idRange = (start + 1)..<(output.count - 1)  // inside the quotes
            case .aps:
                aps.write(to: &output) { value, output in
                    writeAPSValue(value, to: &output)
                    return true
                }
            }
            return true
        }
        return idRange
    }

    private func writeAPSValue(_ value: APSValue, to output: inout ByteWriter) {
        switch value {
        case .alert: writeAlert(to: &output)
        case .integer(let number): JSONOutput.writeInteger(Int64(number), to: &output)
        case .node(let node): document.write(node, to: &output)
        case .one: output.append(UInt8(ascii: "1"))
        }
    }

    /// `aps.alert`, its members in name order.
    private func writeAlert(to output: inout ByteWriter) {
        var first = true
        func name(_ name: StaticString, _ output: inout ByteWriter) {
            output.appendMemberName(name, first: first)
            first = false
        }
        func text(_ key: StaticString, _ node: JSONNodeIndex?, _ output: inout ByteWriter) {
            guard let node else { return }
            name(key, &output)
            document.write(node, to: &output)
        }
        func list(_ key: StaticString, _ strings: [String]?, _ output: inout ByteWriter) {
            guard let strings else { return }
            name(key, &output)
            output.append(UInt8(ascii: "["))
            for (index, string) in strings.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONOutput.writeString(string, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
        text("body", notification.body, &output)
        list("loc-args", notification.bodyLocArgs, &output)
        text("loc-key", notification.bodyLocKey, &output)
        text("subtitle", notification.subtitle, &output)
        text("title", notification.title, &output)
        list("title-loc-args", notification.titleLocArgs, &output)
        text("title-loc-key", notification.titleLocKey, &output)
        output.append(UInt8(ascii: "}"))
    }

    /// The members of `aps`, sorted, after the v1 `apns.payload.aps` keys were merged over them.
    private static func apsMembers(of request: borrowing SendRequest) -> SortedMembers<APSValue> {
        var aps = SortedMembers<APSValue>()
        // Added in name order, so that the sort has nothing to move; read in place, as a copy of
        // the notification would retain its lists.
        if request.notification.hasAlert { aps.add(Names.alert, .alert) }
        if let badge = request.notification.badge { aps.add(Names.badge, .integer(badge)) }
        if let category = request.notification.clickAction { aps.add(Names.category, .node(category)) }
        if request.contentAvailable { aps.add(Names.contentAvailable, .one) }
        if request.mutableContent || request.apnsImage != nil || request.notification.image != nil {
            aps.add(Names.mutableContent, .one)
        }
        if let sound = request.notification.sound { aps.add(Names.sound, .node(sound)) }
        let document = request.document
        if let payload = request.apnsPayload,
            let overrides = FieldReader<APNsPayloadField>(document: document, object: payload, path: .root).value(.aps)
        {
            for (key, value) in document.members(of: overrides) {
                let name = document.name(key)
                aps.add(name, Self.isFlag(name) ? Self.flag(document[value].kind) ?? .node(value) : .node(value))
            }
        }
        aps.sort()
        return aps
    }

    /// Whether `name` is one of `aps`' flags, which the inbox carries as numbers, never as
    /// booleans.
    private static func isFlag(_ name: ByteSpan) -> Bool {
        name == Names.contentAvailable || name == Names.mutableContent
    }

    /// A flag given as a boolean, as the number APNs documents: 1 for true, 0 for false; nil for
    /// any other value, which is written as given.
    private static func flag(_ kind: JSONNode.Kind) -> APSValue? {
        switch kind {
        case .true: .one
        case .false: .integer(0)
        default: nil
        }
    }

    /// What the message is to APNs: a Live Activity update when the request names one; else an
    /// alert when `aps` has an `alert`, `badge` or `sound`; else a background push when
    /// `content-available` is set (not 0 or false); else data for the app's direct channel.
    var pushKind: PushKind {
        if isLiveActivity { return .liveActivity }
        var contentAvailable = false
        for member in aps.members {
            let name = member.name
            if name == Names.alert || name == Names.badge || name == Names.sound { return .alert }
            guard name == Names.contentAvailable else { continue }
            contentAvailable =
                switch member.value {
                case .node(let node):
                    !(document[node].kind == .false
                        || (document[node].kind == .number && document.numberText(node) == "0"))
                case .integer(let value): value != 0
                case .alert, .one: true
                }
        }
        return contentAvailable ? .background : .direct
    }

    /// Member names the translation writes.
    private enum Names {
        static var aps: ByteSpan { ByteSpan("aps") }
        static var alert: ByteSpan { ByteSpan("alert") }
        static var badge: ByteSpan { ByteSpan("badge") }
        static var sound: ByteSpan { ByteSpan("sound") }
        static var category: ByteSpan { ByteSpan("category") }
        static var contentAvailable: ByteSpan { ByteSpan("content-available") }
        static var mutableContent: ByteSpan { ByteSpan("mutable-content") }
        static var fcmOptions: ByteSpan { ByteSpan("fcm_options") }
        static var messageID: ByteSpan { ByteSpan("gcm.message_id") }
    }
}
