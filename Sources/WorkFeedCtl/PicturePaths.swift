import WorkFeedModel
import WorkFeedWire

/// A workout as `show --json` and `feed --json` print it: the record, and each picture with the
/// file it is in (`path`, for generated pictures), as the text output shows it.
struct WorkoutJSON: Encodable {
    var workout: WorkoutRecord
    var pictures: [PictureJSON]

    init(_ item: WorkoutWithPictures, cacheDirectory: String) {
        workout = item.workout
        pictures = item.pictures.map { PictureJSON(record: $0, cacheDirectory: cacheDirectory) }
    }
}

/// A picture's record with its file.
struct PictureJSON: Encodable {
    var record: PictureRecord
    /// The PNG, under the coordinator's cache directory; `nil` until it is generated.
    var path: String?

    init(record: PictureRecord, cacheDirectory: String) {
        self.record = record
        path = record.status == .generated ? cacheDirectory + "/" + record.relativePath : nil
    }

    private enum Key: String, CodingKey { case path }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(path, forKey: .path)
    }
}
