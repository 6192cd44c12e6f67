/// This release of fcm-bridge, said by `--version`, the worker's start-up log and the
/// `fcm_bridge_build_info` metric. The image tag the deploy files pin and CHANGELOG.md's newest
/// release are checked against it (DeploymentFileTests), so the version is written here alone.
public enum BridgeVersion {
    /// The release, as `MAJOR.MINOR.PATCH`.
    public static let current = "0.11.0"
}
