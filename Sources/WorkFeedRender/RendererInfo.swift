/// Facts about this renderer that other parts of the system depend on.
public enum RendererInfo {
    /// Goes into every picture's cache key, so that changing how pictures look regenerates them.
    /// Bump it whenever the bytes of any picture change (drawing, colours, compression, chunks).
    public static let version: Int = 1
}
