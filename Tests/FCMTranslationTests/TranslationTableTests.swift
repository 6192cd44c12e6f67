import Testing

@testable import FCMTranslation

/// One case per row of the contract's APNs translation table: a request, and what must be in the
/// payload (`aps` and custom keys) and headers that come out.
struct TranslationCase: CustomTestStringConvertible, Sendable {
    let name: String
    let request: String
    /// Payload members that must be present with these values (JSON).
    var payload: [String: String] = [:]
    /// Headers that must be present with these values; nil value: must be absent.
    var headers: [String: String?] = [:]
    var bundleID: String?

    var testDescription: String { name }
}

@Suite("APNs translation table")
struct TranslationTableTests {
    static let cases: [TranslationCase] = [
        TranslationCase(
            name: "title, body, subtitle become aps.alert",
            request: #"{"to":"t","notification":{"title":"T","body":"B","subtitle":"S"}}"#,
            payload: ["aps": #"{"alert":{"title":"T","body":"B","subtitle":"S"}}"#]),
        TranslationCase(
            name: "v1 title and body become aps.alert",
            request: #"{"message":{"token":"t","notification":{"title":"T","body":"B"}}}"#,
            payload: ["aps": #"{"alert":{"title":"T","body":"B"}}"#]),
        TranslationCase(
            name: "title_loc_key and args",
            request: #"{"to":"t","notification":{"title_loc_key":"K","title_loc_args":["a","b"]}}"#,
            payload: ["aps": #"{"alert":{"title-loc-key":"K","title-loc-args":["a","b"]}}"#]),
        TranslationCase(
            name: "body_loc_key and args as a JSON-encoded string",
            request: #"{"to":"t","notification":{"body_loc_key":"K","body_loc_args":"[\"x\",\"y\"]"}}"#,
            payload: ["aps": #"{"alert":{"loc-key":"K","loc-args":["x","y"]}}"#]),
        TranslationCase(
            name: "title_loc_args as a JSON-encoded string",
            request: #"{"to":"t","notification":{"title_loc_key":"K","title_loc_args":"[\"1\"]"}}"#,
            payload: ["aps": #"{"alert":{"title-loc-key":"K","title-loc-args":["1"]}}"#]),
        TranslationCase(
            name: "badge string becomes a number",
            request: #"{"to":"t","notification":{"badge":"7"}}"#,
            payload: ["aps": #"{"badge":7}"#]),
        TranslationCase(
            name: "badge string with spaces, a sign and escapes",
            request: #"{"to":"t","notification":{"badge":" +\u0031\u0032 "}}"#,
            payload: ["aps": #"{"badge":12}"#]),
        TranslationCase(
            name: "badge as a JSON number",
            request: #"{"to":"t","notification":{"badge":0}}"#,
            payload: ["aps": #"{"badge":0}"#]),
        TranslationCase(
            name: "priority written with escapes",
            request: #"{"to":"t","priority":"n\u006frmal","notification":{"title":"T"}}"#,
            headers: ["apns-priority": "5"]),
        TranslationCase(
            name: "sound", request: #"{"to":"t","notification":{"sound":"ping.aiff"}}"#,
            payload: ["aps": #"{"sound":"ping.aiff"}"#]),
        TranslationCase(
            name: "click_action becomes category",
            request: #"{"to":"t","notification":{"title":"x","click_action":"REPLY"}}"#,
            payload: ["aps": #"{"alert":{"title":"x"},"category":"REPLY"}"#]),
        TranslationCase(
            name: "content_available becomes content-available 1",
            request: #"{"to":"t","content_available":true}"#,
            payload: ["aps": #"{"content-available":1}"#]),
        TranslationCase(
            name: "mutable_content becomes mutable-content 1",
            request: #"{"to":"t","mutable_content":true,"notification":{"title":"x"}}"#,
            payload: ["aps": #"{"alert":{"title":"x"},"mutable-content":1}"#]),
        TranslationCase(
            name: "notification.image becomes fcm_options.image and mutable-content",
            request: #"{"message":{"token":"t","notification":{"title":"x","image":"https://i/1.png"}}}"#,
            payload: [
                "fcm_options": #"{"image":"https://i/1.png"}"#, "aps": #"{"alert":{"title":"x"},"mutable-content":1}"#,
            ]),
        TranslationCase(
            name: "apns.fcm_options.image wins over notification.image",
            request:
                #"{"message":{"token":"t","notification":{"image":"https://a"},"apns":{"fcm_options":{"image":"https://b"}}}}"#,
            payload: ["fcm_options": #"{"image":"https://b"}"#, "aps": #"{"mutable-content":1}"#]),
        TranslationCase(
            name: "data entries become top-level keys, legacy values of any type",
            request: #"{"to":"t","data":{"customKey":"customValue","n":5,"o":{"a":[1,true,null]}}}"#,
            payload: ["customKey": #""customValue""#, "n": "5", "o": #"{"a":[1,true,null]}"#]),
        TranslationCase(
            name: "v1 data entries become top-level keys",
            request: #"{"message":{"token":"t","data":{"k":"v"}}}"#,
            payload: ["k": #""v""#]),
        TranslationCase(
            name: "message id becomes gcm.message_id",
            request: #"{"to":"t"}"#, payload: ["gcm.message_id": #""m-1""#]),
        TranslationCase(
            name: "apns.payload merges over the result and its aps keys win",
            request:
                #"{"message":{"token":"t","notification":{"title":"x"},"data":{"k":"data"},"apns":{"payload":{"aps":{"alert":"plain","sound":"s","category":"C"},"k":"apns","extra":1}}}}"#,
            payload: ["aps": #"{"alert":"plain","sound":"s","category":"C"}"#, "k": #""apns""#, "extra": "1"]),
        TranslationCase(
            name: "priority high gives apns-priority 10",
            request: #"{"to":"t","priority":"high","notification":{"title":"x"}}"#,
            headers: ["apns-priority": "10", "apns-push-type": "alert"]),
        TranslationCase(
            name: "priority normal gives apns-priority 5",
            request: #"{"to":"t","priority":"normal","notification":{"title":"x"}}"#,
            headers: ["apns-priority": "5", "apns-push-type": "alert"]),
        TranslationCase(
            name: "collapse_key becomes apns-collapse-id",
            request: #"{"to":"t","collapse_key":"score"}"#, headers: ["apns-collapse-id": "score"]),
        TranslationCase(
            name: "time_to_live gives apns-expiration = send time + ttl",
            request: #"{"to":"t","time_to_live":3600}"#, headers: ["apns-expiration": "1700003600"]),
        TranslationCase(
            name: "time_to_live 0 gives apns-expiration 0",
            request: #"{"to":"t","time_to_live":0}"#, headers: ["apns-expiration": "0"]),
        TranslationCase(
            name: "no time_to_live, no apns-expiration",
            request: #"{"to":"t"}"#, headers: ["apns-expiration": nil, "apns-collapse-id": nil]),
        TranslationCase(
            name: "apns.headers pass through and win over derived headers",
            request:
                #"{"message":{"token":"t","notification":{"title":"x"},"apns":{"headers":{"apns-priority":"5","apns-push-type":"voip","apns-collapse-id":"c","x-custom":"1"}}}}"#,
            headers: ["apns-priority": "5", "apns-push-type": "voip", "apns-collapse-id": "c", "x-custom": "1"]),
        TranslationCase(
            name: "content-available without alert, badge or sound is a background push at priority 5",
            request: #"{"to":"t","priority":"high","content_available":true,"data":{"k":"v"}}"#,
            headers: ["apns-push-type": "background", "apns-priority": "5"]),
        TranslationCase(
            name: "content-available from apns.payload also makes a background push",
            request: #"{"message":{"token":"t","apns":{"payload":{"aps":{"content-available":1}}}}}"#,
            headers: ["apns-push-type": "background", "apns-priority": "5"]),
        TranslationCase(
            name: "apns.payload's aps flags given as booleans come out as the numbers 1 and 0",
            request:
                #"{"message":{"token":"t","apns":{"payload":{"aps":{"content-available":true,"mutable-content":false}}}}}"#,
            payload: ["aps": #"{"content-available":1,"mutable-content":0}"#],
            headers: ["apns-push-type": "background"]),
        TranslationCase(
            name: "content-available false from apns.payload is no background push",
            request:
                #"{"message":{"token":"t","data":{"k":"v"},"apns":{"payload":{"aps":{"content-available":false}}}}}"#,
            payload: ["aps": #"{"content-available":0}"#],
            headers: ["apns-push-type": nil]),
        TranslationCase(
            name: "a background push keeps a priority its headers give",
            request:
                #"{"message":{"token":"t","apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"content-available":1}}}}}"#,
            headers: ["apns-push-type": "background", "apns-priority": "10"]),
        TranslationCase(
            name: "content-available with a sound is an alert push",
            request: #"{"to":"t","content_available":true,"notification":{"sound":"default"}}"#,
            headers: ["apns-push-type": "alert"]),
        TranslationCase(
            name: "content-available with a badge is an alert push",
            request: #"{"to":"t","content_available":true,"notification":{"badge":"1"}}"#,
            headers: ["apns-push-type": "alert"]),
        TranslationCase(
            name: "data only, without content-available, is for the app's direct channel: no APNs push type",
            request: #"{"to":"t","data":{"k":"v"}}"#,
            headers: ["apns-push-type": nil, "apns-priority": "10"]),
        TranslationCase(
            name: "a v1 data-only message is for the direct channel too",
            request: #"{"message":{"token":"t","data":{"k":"v"}}}"#,
            headers: ["apns-push-type": nil]),
        TranslationCase(
            name: "a push type the headers give makes it a push again",
            request: #"{"message":{"token":"t","data":{"k":"v"},"apns":{"headers":{"apns-push-type":"alert"}}}}"#,
            headers: ["apns-push-type": "alert"]),
        TranslationCase(
            name: "a live activity token gives push type liveactivity and the topic's suffix",
            request:
                #"{"message":{"token":"t","apns":{"live_activity_token":"la1","payload":{"aps":{"event":"update","timestamp":1,"content-state":{"score":2}}}}}}"#,
            payload: ["aps": #"{"event":"update","timestamp":1,"content-state":{"score":2}}"#],
            headers: [
                "apns-push-type": "liveactivity", "apns-priority": "10",
                "apns-topic": "com.example.app.push-type.liveactivity",
            ],
            bundleID: "com.example.app"),
        TranslationCase(
            name: "a live activity's apns-topic header wins over the derived one",
            request:
                #"{"message":{"token":"t","apns":{"live_activity_token":"la1","headers":{"apns-topic":"x.push-type.liveactivity"},"payload":{"aps":{"event":"end","timestamp":1}}}}}"#,
            headers: ["apns-push-type": "liveactivity", "apns-topic": "x.push-type.liveactivity"],
            bundleID: "com.example.app"),
        TranslationCase(
            name: "apns-topic comes from the bundle id",
            request: #"{"to":"t"}"#, headers: ["apns-topic": "com.example.app"], bundleID: "com.example.app"),
        TranslationCase(
            name: "an apns-topic header wins over the bundle id",
            request: #"{"message":{"token":"t","apns":{"headers":{"apns-topic":"com.other"}}}}"#,
            headers: ["apns-topic": "com.other"], bundleID: "com.example.app"),
        TranslationCase(
            name: "no bundle id, no apns-topic",
            request: #"{"to":"t"}"#, headers: ["apns-topic": nil]),
        TranslationCase(
            name: "android and webpush are accepted and ignored",
            request:
                #"{"message":{"token":"t","android":{"priority":"high"},"webpush":{"headers":{}},"notification":{"title":"x"}}}"#,
            payload: ["aps": #"{"alert":{"title":"x"}}"#]),
    ]

    @Test("each row of the table", arguments: cases)
    func row(_ testCase: TranslationCase) throws {
        let result = translate(testCase.request, bundleID: testCase.bundleID)
        let message = try #require(result.message, "rejected: \(String(describing: result.rejection))")
        for (key, expected) in testCase.payload {
            #expect(message.payload[key] == json(expected), "payload[\(key)]")
        }
        for (name, expected) in testCase.headers {
            #expect(message.headers[name] == expected, "header \(name)")
        }
    }

    @Test(
        "a bundle id set after the translator was made is the topic, escaped as JSON needs",
        arguments: [
            (nil, nil), ("com.later", "com.later"), (#"a"b\c"#, #"a"b\c"#),
        ] as [(String?, String?)])
    func bundleIDChanged(bundleID: String?, topic: String?) throws {
        var translator = APNsTranslator(bundleID: "com.first")
        translator.bundleID = bundleID
        let request = try RequestDecoder.decode(Array(#"{"to":"t","notification":{"title":"x"}}"#.utf8)).get()
        let message = try translator.translate(request, messageID: "m-1", sentAt: 0).get()
        #expect(message.headers["apns-topic"] == topic)
    }

    @Test(
        "a data-only message says it is for the direct channel; a push does not",
        arguments: [
            (#"{"to":"t","data":{"k":"v"}}"#, JSONValue?.some(.string("direct"))),
            (#"{"to":"t","content_available":true}"#, nil),
            (#"{"to":"t","notification":{"title":"x"}}"#, nil),
            (#"{"message":{"token":"t","data":{"k":"v"},"apns":{"headers":{"apns-push-type":"background"}}}}"#, nil),
        ])
    func directChannel(request: String, channel: JSONValue?) throws {
        let message = try #require(translate(request).message)
        #expect(message.json["channel"] == channel)
    }

    @Test("a live activity's token is carried next to its headers, for the APNs request")
    func liveActivityToken() throws {
        let message = try #require(
            translate(
                #"{"message":{"token":"t","apns":{"live_activity_token":"la1","payload":{"aps":{"event":"start"}}}}}"#
            ).message)
        #expect(message.json["live_activity_token"] == .string("la1"))
        #expect(message.json["channel"] == nil)
        #expect(
            translate(#"{"message":{"token":"t","notification":{"title":"x"}}}"#).message?.json["live_activity_token"]
                == nil)
    }

    @Test("the alert's keys are exactly the ones given; badge and flags are JSON numbers")
    func exactPayload() throws {
        let message = try #require(
            translate(#"{"to":"t","content_available":true,"notification":{"title":"T","badge":"2"}}"#).message)
        #expect(
            JSONValue.object(message.payload)
                == json(#"{"aps":{"alert":{"title":"T"},"badge":2,"content-available":1},"gcm.message_id":"m-1"}"#))
        #expect(String(decoding: message.jsonBytes, as: UTF8.self).contains(#""content-available":1"#))
        #expect(String(decoding: message.jsonBytes, as: UTF8.self).contains(#""badge":2"#))
    }

    @Test(
        "an fid is a device target exactly like a token: the same device and the same translation",
        arguments: [
            (#"{"message":{"%@":"d-1","notification":{"title":"T"},"data":{"k":"v"}}}"#, false),
            (
                #"{"validate_only":true,"message":{"%@":"d-1","apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"badge":1}}}}}"#,
                true
            ),
        ])
    func fidTarget(template: String, validateOnly: Bool) throws {
        let byToken = template.replacingOccurrences(of: "%@", with: "token")
        let byFID = template.replacingOccurrences(of: "%@", with: "fid")
        let request = try RequestDecoder.decode(Array(byFID.utf8)).get()
        #expect(request.tokens == ["d-1"])
        #expect(request.validateOnly == validateOnly)
        let message = try #require(translate(byFID).message)
        #expect(message == translate(byToken).message)
    }

    @Test("a legacy multicast decodes to one request naming every token")
    func multicast() throws {
        let request = try RequestDecoder.decode(Array(#"{"registration_ids":["a","b","c"],"data":{"k":"v"}}"#.utf8))
            .get()
        #expect(request.tokens == ["a", "b", "c"])
        #expect(request.format == .legacy)
    }

    @Test("validate_only and dry_run are read")
    func validateOnly() throws {
        #expect(
            try RequestDecoder.decode(Array(#"{"validate_only":true,"message":{"token":"t"}}"#.utf8)).get().validateOnly
        )
        #expect(try RequestDecoder.decode(Array(#"{"to":"t","dry_run":true}"#.utf8)).get().validateOnly)
        #expect(try !RequestDecoder.decode(Array(#"{"to":"t"}"#.utf8)).get().validateOnly)
    }
}
