import Foundation
import HTTPTypes

/// An error answered as Google's APIs answer one: a `google.rpc.Status` in an `error` object,
/// with FCM's `FcmError` detail where FCM gives one, so that an Admin SDK raises the exception
/// class it raises against FCM.
public struct GoogleError: Error, Sendable, Hashable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The canonical code's name (`INVALID_ARGUMENT`, `UNAUTHENTICATED`, ...).
    public var code: String
    /// What is wrong, for a person.
    public var message: String
    /// FCM's `errorCode` detail, when FCM sends one for this error.
    public var fcmErrorCode: String?
    /// Seconds the caller should wait before trying again (`Retry-After`).
    public var retryAfterSeconds: Int?

    /// An error answered with `status`, the canonical `code` and `message`.
    public init(
        _ status: HTTPResponse.Status, code: String, _ message: String, fcmErrorCode: String? = nil,
        retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.fcmErrorCode = fcmErrorCode
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// A request FCM refuses as invalid: 400, with FCM's `INVALID_ARGUMENT` detail.
    public static func invalidArgument(_ message: String) -> GoogleError {
        GoogleError(.badRequest, code: "INVALID_ARGUMENT", message, fcmErrorCode: "INVALID_ARGUMENT")
    }

    /// No valid access token: 401.
    public static func unauthenticated(_ message: String) -> GoogleError {
        GoogleError(.unauthorized, code: "UNAUTHENTICATED", message)
    }

    /// A valid token that may not do this: 403.
    public static func permissionDenied(_ message: String) -> GoogleError {
        GoogleError(.forbidden, code: "PERMISSION_DENIED", message)
    }

    /// An account over its rate: 429 with FCM's `QUOTA_EXCEEDED` and `Retry-After`.
    public static func quotaExceeded(retryAfterSeconds: Int) -> GoogleError {
        GoogleError(
            .tooManyRequests, code: "RESOURCE_EXHAUSTED", "Quota exceeded for this service account's sends.",
            fcmErrorCode: "QUOTA_EXCEEDED", retryAfterSeconds: retryAfterSeconds)
    }

    /// The records could not be written: 503, which the SDKs retry.
    public static func unavailable(_ message: String) -> GoogleError {
        GoogleError(.serviceUnavailable, code: "UNAVAILABLE", message, fcmErrorCode: "UNAVAILABLE")
    }

    /// No such route or resource: 404.
    public static func notFound(_ message: String) -> GoogleError {
        GoogleError(.notFound, code: "NOT_FOUND", message)
    }

    /// The body: `{"error": {"code": 400, "message": ..., "status": ..., "details": [...]}}`.
    public var body: Data {
        struct Detail: Encodable {
            var type = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
            var errorCode: String
            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case errorCode
            }
        }
        struct Status: Encodable {
            var code: Int
            var message: String
            var status: String
            var details: [Detail]?
        }
        struct Envelope: Encodable { var error: Status }
        let envelope = Envelope(
            error: Status(
                code: status.code, message: message, status: code,
                details: fcmErrorCode.map { [Detail(errorCode: $0)] }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(envelope)) ?? Data(#"{"error":{}}"#.utf8)
    }
}
