import WorkFeedModel

/// Facts about this renderer that other parts of the system depend on.
public enum RendererInfo {
    /// Goes into every picture's cache key, so that changing how pictures look regenerates them.
    ///
    /// It is `PictureSpec.rendererVersion` from the model, because the coordinator (which does not
    /// link the renderer) hashes it into cache keys and refuses workers whose version differs: one
    /// number, kept there. Bump it whenever the bytes of any picture change (drawing, colours,
    /// compression, chunks); see docs/rendering.md.
    public static let version: Int = PictureSpec.rendererVersion
}
