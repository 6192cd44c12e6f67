import FCMTranslation

/// A record's CreateTime as the time of the event it carries. A record without one, or with one
/// before the epoch, is rejected: the wall clock never stands in for it.
enum EventTime {
    /// The time, if the record has a usable one.
    static func valid(_ time: Int64?) -> Int64? {
        guard let time, time >= 0 else { return nil }
        return time
    }

    /// The `at` of a status about a record whose time is not usable: 0.
    static func reported(_ time: Int64?) -> Int64 { valid(time) ?? 0 }

    /// `value` of a record at `time`, or, when the time is not usable, its ``rejection(_:tokens:)``.
    static func checked<Value>(_ value: Value, at time: Int64?, tokens: [String]) -> Result<Value, Rejection> {
        valid(time) == nil ? .failure(rejection(time, tokens: tokens)) : .success(value)
    }

    /// Why a record with an unusable time is rejected, naming the field, for the devices it names.
    static func rejection(_ time: Int64?, tokens: [String]) -> Rejection {
        var rejection = Rejection(
            .invalidArgument,
            "the record's timestamp: a CreateTime of 0 or later is required, got \(time.map { String($0) } ?? "none")")
        rejection.tokens = tokens
        return rejection
    }
}
