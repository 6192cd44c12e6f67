import BridgeConfig
import Glibc
import NIOPosix

/// Workers' endpoints, each host resolved to every address it names (a Kubernetes headless
/// Service names each ready pod), as `address:port`.
enum WorkerAddresses {
    /// Every address of `endpoints`, resolved on NIO's blocking-work pool (`getaddrinfo`
    /// blocks); a host that does not resolve stays as it is.
    static func resolve(_ endpoints: [HTTPAddress]) async -> [String] {
        (try? await NIOThreadPool.singleton.runIfActive { endpoints.flatMap(resolve) })
            ?? endpoints.map(\.description)
    }

    private static func resolve(_ endpoint: HTTPAddress) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(endpoint.host, nil, &hints, &list) == 0, let first = list else {
            return [endpoint.description]
        }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if let address = current.pointee.ai_addr,
                getnameinfo(address, current.pointee.ai_addrlen, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
                    == 0
            {
                let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let formatted = HTTPAddress(host: text, port: endpoint.port).description
                if !addresses.contains(formatted) { addresses.append(formatted) }
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? [endpoint.description] : addresses
    }
}
