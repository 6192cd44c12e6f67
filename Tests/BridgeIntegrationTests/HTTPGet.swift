import AsyncHTTPClient
import Foundation
import NIOCore

/// A GET of `http://address/path`: its status code and body.
func httpGet(_ address: String, _ path: String) async throws -> (status: Int, body: String) {
    let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: "http://\(address)\(path)"), timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
    return (Int(response.status.code), String(buffer: body))
}

/// The value of the Prometheus sample `name{labels}` (exactly as written) in `text`; nil when absent.
func sample(_ name: String, in text: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
    }
    return nil
}
