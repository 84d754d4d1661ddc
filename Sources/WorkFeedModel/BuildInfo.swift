/// What every program says for `--version`: the release, how it was built, and the numbers that
/// decide whether parts can work together (the renderer's version is in every cache key).
public enum BuildInfo {
    /// The release, raised with each one that changes what operators see.
    public static let version = "0.4.0"

    #if DEBUG
    public static let configuration = "debug"
    #else
    public static let configuration = "release"
    #endif

    /// "0.4.0 (release build, renderer 2)".
    public static var description: String {
        "\(version) (\(configuration) build, renderer \(PictureSpec.rendererVersion))"
    }
}
