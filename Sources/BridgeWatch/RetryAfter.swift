import Foundation

/// Reads an HTTP `Retry-After` value: whole seconds, or an HTTP date (RFC 9110), as the time
/// to wait from `now`, at most `maximum`; nil when it is neither.
public enum RetryAfter {
    /// The longest wait a webhook can ask for: an hour.
    public static let maximum = Duration.seconds(3600)

    /// The wait `value` asks for, from `now`, at most `maximum`; nil when it is not a `Retry-After`.
    public static func parse(_ value: String, now: Date = Date(), maximum: Duration = Self.maximum) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let seconds: Double
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) {
            seconds = Double(text) ?? .infinity
        } else if let date = httpDate(text) {
            seconds = max(date.timeIntervalSince(now), 0)
        } else {
            return nil
        }
        return seconds >= Double(maximum.components.seconds) ? maximum : .milliseconds(Int64(seconds * 1000))
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, the one form RFC 9110 requires senders to use.
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
