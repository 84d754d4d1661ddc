import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

/// A workout as `show --json` and `feed --json` print it: the record, and each picture with the
/// file it is in (`path`, for generated pictures), as the text output shows it.
struct WorkoutJSON: Encodable {
    var workout: WorkoutRecord
    var pictures: [PictureJSON]

    init(_ item: WorkoutWithPictures, store: any PictureStore) {
        workout = item.workout
        pictures = item.pictures.map { PictureJSON(record: $0, store: store) }
    }
}

/// A picture's record with its file.
struct PictureJSON: Encodable {
    var record: PictureRecord
    /// Where the PNG is (``PictureStore/location(of:)``); `nil` until it is generated.
    var path: String?

    init(record: PictureRecord, store: any PictureStore) {
        self.record = record
        path = record.status == .generated ? store.location(of: record.picture) : nil
    }

    private enum Key: String, CodingKey { case path }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(path, forKey: .path)
    }
}
