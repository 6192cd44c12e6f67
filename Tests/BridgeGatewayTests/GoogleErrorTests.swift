import BridgeGateway
import Foundation
import Testing

@Suite struct GoogleErrorTests {
    @Test func anInvalidArgumentIsFCMsError() throws {
        let body = String(decoding: GoogleError.invalidArgument("message.token: required").body, as: UTF8.self)
        #expect(
            body
                == #"{"error":{"code":400,"details":[{"@type":"type.googleapis.com\/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}],"message":"message.token: required","status":"INVALID_ARGUMENT"}}"#
        )
    }

    @Test func anUnauthenticatedErrorHasNoFCMDetail() {
        let body = String(decoding: GoogleError.unauthenticated("no token").body, as: UTF8.self)
        #expect(body == #"{"error":{"code":401,"message":"no token","status":"UNAUTHENTICATED"}}"#)
    }
}
