import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// `workouts` as the feed shows them, each with its pictures and in its owner's units, read
/// through `reader`: a read-only connection's (SHOW, FEED, CHANGES) or the write transaction's
/// (UPLOAD, which answers with what it just stored).
func feedItems(_ workouts: [WorkoutRecord], reader: some IndexReading, pictureSize: PictureSize) throws -> [FeedItem] {
    let pictures = try reader.pictures(of: workouts.map(\.id))
    var units: [String: UnitSystem] = [:]
    let size = (width: pictureSize.width, height: pictureSize.height)
    return try workouts.map { workout in
        let owned: UnitSystem
        if let known = units[workout.owner] {
            owned = known
        } else {
            owned = try reader.ownerSettings(owner: workout.owner).units ?? .metric
            units[workout.owner] = owned
        }
        return FeedItem(record: workout, pictures: pictures[workout.id] ?? [], units: owned, pictureSize: size)
    }
}
