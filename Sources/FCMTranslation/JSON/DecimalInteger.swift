/// Reads a whole number from bytes as `Int(_: String)` reads it from text, without making a
/// `String`: an optional `+` or `-`, then one or more ASCII digits and nothing else; nil when
/// the text is not such a number or the number does not fit an `Int`.
package enum DecimalInteger {
    /// The number `bytes` spell; nil when they spell none that fits an `Int`.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let isNegative = bytes.first == UInt8(ascii: "-")
        if isNegative || bytes.first == UInt8(ascii: "+") { index = 1 }
        guard index < bytes.count else { return nil }
        if bytes.count - index <= 18 {
            // 18 digits cannot overflow (10^18 < Int.max): no checks but the digits'.
            var magnitude = 0
            while index < bytes.count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                magnitude = magnitude &* 10 &+ Int(digit)
                index += 1
            }
            return isNegative ? -magnitude : magnitude
        }
        var value = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Negative numbers are built downwards, so that Int.min fits.
            let (scaled, scaleOverflow) = value.multipliedReportingOverflow(by: 10)
            let (next, digitOverflow) =
                isNegative
                ? scaled.subtractingReportingOverflow(Int(digit))
                : scaled.addingReportingOverflow(Int(digit))
            guard !scaleOverflow && !digitOverflow else { return nil }
            value = next
            index += 1
        }
        return value
    }
}
