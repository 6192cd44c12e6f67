/// The account an access token was issued to, and what it may do.
public struct Caller: Sendable {
    /// The service account.
    public var account: ServiceAccounts.Account
    /// The scopes its token was granted.
    public var scopes: Set<String>

    /// Nil when the caller may send, for `project` when one is named; else Google's 403.
    public func problem(sendingFor project: String?) -> GoogleError? {
        guard !scopes.isDisjoint(with: TokenAuthority.sendingScopes) else {
            return .permissionDenied("Request had insufficient authentication scopes.")
        }
        guard let project, !account.projects.contains(project) else { return nil }
        return .permissionDenied(
            "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist)."
        )
    }
}
