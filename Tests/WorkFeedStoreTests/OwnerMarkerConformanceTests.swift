import Foundation
import Testing
import WorkFeedModel
import WorkFeedStore

/// The owner marker and the look for any picture (``PictureStore/ownerMarker()``,
/// ``PictureStore/holdsPictures()``), on a directory and on a bucket under a prefix, as the
/// coordinator's start asks them (docs/operations.md, "One store, one index").
@Suite struct OwnerMarkerConformanceTests {
    typealias Kind = PictureStoreConformanceTests.Kind

    @Test(arguments: PictureStoreConformanceTests.kinds)
    func theMarkerIsReadBackAndAPictureUnderEitherNameIsFound(_ kind: Kind) throws {
        for name in ["by picture", "by content"] {
            let fixture = try PictureStoreConformanceTests.Fixture(kind)
            let store = fixture.store
            #expect(try store.ownerMarker() == nil)
            #expect(try !store.holdsPictures())
            // Neither the marker nor a probe is a picture.
            try store.writeOwnerMarker("workfeed-index 1\n")
            try store.probe()
            #expect(try !store.holdsPictures())
            #expect(try store.ownerMarker() == "workfeed-index 1\n")
            try store.writeOwnerMarker("workfeed-index 2\n")
            #expect(try store.ownerMarker() == "workfeed-index 2\n")

            let key = PictureStoreConformanceTests.key("5e")
            let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .heatmap, theme: .light, scale: 1)
            try store.put(PictureStoreConformanceTests.png(key, [7]), for: picture, key: key)
            if name == "by picture" { try store.delete(key: key) } else { try store.delete(picture) }
            #expect(try store.holdsPictures(), "\(kind): a picture stored \(name) only")
        }
    }
}
