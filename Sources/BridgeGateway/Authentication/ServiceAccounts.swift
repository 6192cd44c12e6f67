import Foundation
import JWTKit

/// The service accounts the gateway issues access tokens to: each with the public keys of its
/// private keys (by `private_key_id`, the JWT's `kid`) and the projects it may send to. Read
/// from a JSON file; the private keys stay with the app servers.
///
/// ```json
/// {"accounts": [{"client_email": "app@example.iam.gserviceaccount.com",
///                "projects": ["example"],
///                "keys": {"<private_key_id>": "-----BEGIN CERTIFICATE-----\n..."}}]}
/// ```
///
/// A key is a PEM certificate (what Google publishes for an account's keys) or a PEM public key.
public struct ServiceAccounts: Sendable {
    /// One service account.
    public struct Account: Sendable {
        /// `client_email`: the assertion's issuer.
        public var email: String
        /// The projects whose API the account may call.
        public var projects: Set<String>
        /// Its public keys by key id.
        var keys: [String: Insecure.RSA.PublicKey]
    }

    /// Why the accounts file cannot be used, naming the file and the field.
    public struct InvalidFile: Error, CustomStringConvertible {
        public var description: String
    }

    /// The accounts by email.
    public private(set) var accounts: [String: Account] = [:]

    /// The accounts of a file's JSON text; `source` names it in errors.
    public init(json: Data, source: String) throws(InvalidFile) {
        struct File: Decodable {
            struct Entry: Decodable {
                var clientEmail: String
                var projects: [String]
                var keys: [String: String]
                enum CodingKeys: String, CodingKey {
                    case clientEmail = "client_email"
                    case projects, keys
                }
            }
            var accounts: [Entry]
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: json)
        } catch {
            throw InvalidFile(description: "\(source): not an accounts file: \(Self.describe(error))")
        }
        for (index, entry) in file.accounts.enumerated() {
            let field = "\(source): accounts[\(index)]"
            guard !entry.clientEmail.isEmpty else { throw InvalidFile(description: "\(field).client_email is empty") }
            guard accounts[entry.clientEmail] == nil else {
                throw InvalidFile(description: "\(field).client_email \(entry.clientEmail) is listed twice")
            }
            guard !entry.projects.isEmpty else { throw InvalidFile(description: "\(field).projects is empty") }
            for (place, project) in entry.projects.enumerated() where (try? ProjectID(project)) == nil {
                throw InvalidFile(
                    description:
                        "\(field).projects[\(place)] \"\(project)\" is not a project id (lowercase letters, digits, - . :)"
                )
            }
            guard !entry.keys.isEmpty else { throw InvalidFile(description: "\(field).keys is empty") }
            var keys: [String: Insecure.RSA.PublicKey] = [:]
            for (id, pem) in entry.keys {
                do {
                    keys[id] =
                        pem.contains("BEGIN CERTIFICATE")
                        ? try Insecure.RSA.PublicKey(certificatePEM: pem) : try Insecure.RSA.PublicKey(pem: pem)
                } catch {
                    throw InvalidFile(description: "\(field).keys.\(id) is not an RSA certificate or public key in PEM")
                }
            }
            accounts[entry.clientEmail] = Account(
                email: entry.clientEmail, projects: Set(entry.projects), keys: keys)
        }
    }

    /// The accounts of the file at `path`.
    public init(file path: String) throws(InvalidFile) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InvalidFile(description: "\(path): cannot be read: \(error.localizedDescription)")
        }
        try self.init(json: data, source: path)
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            let path = path(context.codingPath)
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    /// `accounts[0].client_email`.
    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined().drop { $0 == "." }
            .description
    }
}
