/// Where pictures live in the shared cache:
/// `<cache>/<kind>/<first two hex digits of id>/<id>[_<metric>]_<theme>[@2x].png`.
public enum CacheLayout {
    /// The picture's path relative to the cache root, for example `route/3f/3f2a..._dark.png`.
    public static func relativePath(for picture: PictureID) -> String {
        let id = picture.workoutID.description
        let metric = picture.metric.map { "_\($0)" } ?? ""
        let scale = picture.scale == 1 ? "" : "@\(picture.scale)x"
        return "\(picture.kind.rawValue)/\(id.prefix(2))/\(id)\(metric)_\(picture.theme.rawValue)\(scale).png"
    }
}
