import FCMTranslation

/// How much of a dead letter's key and value fit in one output record: all of both when they
/// do; else the key up to a token's length and the value up to what is left.
struct DeadLetterCut: Hashable {
    var keptKey: Int
    var keptValue: Int
    var cutsKey: Bool
    var cutsValue: Bool

    init(key: Int, value: Int, limits: OutputLimits) {
        // Headers (error, source, what was cut) stay well within a token's length.
        let room = limits.maxRecordBytes - RequestDecoder.maximumTokenBytes
        if key <= room - value {
            (keptKey, keptValue) = (key, value)
        } else {
            keptKey = min(key, RequestDecoder.maximumTokenBytes)
            keptValue = min(value, room - keptKey)
        }
        cutsKey = keptKey < key
        cutsValue = keptValue < value
    }
}
