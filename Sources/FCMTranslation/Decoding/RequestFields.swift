/// The fields of an HTTP v1 request's top level.
enum V1RequestField: Int, FieldName {
    case message, validateOnly

    var name: StaticString {
        switch self {
        case .message: "message"
        case .validateOnly: "validate_only"
        }
    }
}

/// The fields of a v1 `message`.
enum V1MessageField: Int, FieldName {
    // A name is looked up case by case: `fid`, last, costs a token target nothing.
    case name, token, topic, condition, data, notification, android, webpush, apns, fcmOptions, fid

    var name: StaticString {
        switch self {
        case .name: "name"
        case .token: "token"
        case .topic: "topic"
        case .condition: "condition"
        case .data: "data"
        case .notification: "notification"
        case .android: "android"
        case .webpush: "webpush"
        case .apns: "apns"
        case .fcmOptions: "fcm_options"
        case .fid: "fid"
        }
    }
}

/// The fields of a v1 `message.notification`.
enum V1NotificationField: Int, FieldName {
    case title, body, image

    var name: StaticString {
        switch self {
        case .title: "title"
        case .body: "body"
        case .image: "image"
        }
    }
}

/// The field of a v1 `message.fcm_options`.
enum V1OptionsField: Int, FieldName {
    case analyticsLabel

    var name: StaticString { "analytics_label" }
}

/// The fields of a v1 `message.apns.fcm_options`.
enum APNsOptionsField: Int, FieldName {
    case analyticsLabel, image

    var name: StaticString {
        switch self {
        case .analyticsLabel: "analytics_label"
        case .image: "image"
        }
    }
}

/// The fields of a v1 `message.apns`.
enum APNsField: Int, FieldName {
    case headers, payload, fcmOptions, liveActivityToken

    var name: StaticString {
        switch self {
        case .headers: "headers"
        case .payload: "payload"
        case .fcmOptions: "fcm_options"
        case .liveActivityToken: "live_activity_token"
        }
    }
}

/// The field of an APNs payload the translation reads.
enum APNsPayloadField: Int, FieldName {
    case aps

    var name: StaticString { "aps" }
}

/// The fields of a legacy request's top level (others are ignored, as the legacy API did). A
/// member's name is looked up case by case, so the common ones come first.
enum LegacyField: Int, FieldName {
    case to, notification, data, priority, collapseKey, timeToLive
    case registrationIDs, condition, notificationKey, dryRun, contentAvailable, mutableContent

    var name: StaticString {
        switch self {
        case .to: "to"
        case .registrationIDs: "registration_ids"
        case .condition: "condition"
        case .notificationKey: "notification_key"
        case .dryRun: "dry_run"
        case .notification: "notification"
        case .data: "data"
        case .priority: "priority"
        case .contentAvailable: "content_available"
        case .mutableContent: "mutable_content"
        case .collapseKey: "collapse_key"
        case .timeToLive: "time_to_live"
        }
    }
}

/// The fields of a legacy `notification`.
enum LegacyNotificationField: Int, FieldName {
    case title, body, subtitle, sound, badge, clickAction, titleLocKey, titleLocArgs, bodyLocKey, bodyLocArgs, image

    var name: StaticString {
        switch self {
        case .title: "title"
        case .body: "body"
        case .subtitle: "subtitle"
        case .sound: "sound"
        case .badge: "badge"
        case .clickAction: "click_action"
        case .titleLocKey: "title_loc_key"
        case .titleLocArgs: "title_loc_args"
        case .bodyLocKey: "body_loc_key"
        case .bodyLocArgs: "body_loc_args"
        case .image: "image"
        }
    }
}
