/// What every program says for `--version`: the release, how it was built, and the numbers that
/// decide whether parts can work together (the renderer's version is in every cache key).
public enum BuildInfo {
    /// The release, raised with each one that changes what operators see.
    public static let version = "0.4.0"

    /// The version of the drawing code. It is part of every cache key (`PictureSpec`), so that
    /// changing how pictures look makes every picture stale; raise it whenever the bytes of any
    /// picture change. Workers whose version differs from the coordinator's are refused.
    public static let rendererVersion = 6

    #if DEBUG
    public static let configuration = "debug"
    #else
    public static let configuration = "release"
    #endif

    /// "0.4.0 (release build, renderer 2)".
    public static var description: String {
        "\(version) (\(configuration) build, renderer \(rendererVersion))"
    }
}
