/// The package version: what `--version` prints in every program. It must
/// match the top entries of CHANGELOG.md and debian/changelog
/// (scripts/itest-docs.sh checks it).
public enum BlockerVersion {
    public static let current = "0.2.0"
}
