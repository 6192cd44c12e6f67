/// What a translated message is to APNs, which decides its `apns-push-type` header.
enum PushKind {
    /// Something to show: `aps` has an `alert`, a `badge` or a `sound`.
    case alert
    /// A silent wake-up: `aps.content-available` and nothing to show; priority 5 by default.
    case background
    /// An update to a Live Activity (v1 `apns.live_activity_token`): push type `liveactivity`,
    /// and the bundle id's `.push-type.liveactivity` topic.
    case liveActivity
    /// Data for the app alone, with nothing for APNs to show and no wake-up asked for. FCM sends
    /// such a message through the app's direct channel, not APNs, so it gets no push type and
    /// the `apns` object says `"channel": "direct"`.
    case direct
}
