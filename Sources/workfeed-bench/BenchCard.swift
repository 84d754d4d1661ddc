import Foundation
import WorkFeedModel
import WorkFeedStyle

extension PictureSpec {
    /// The spec made a share card's when its kind is one (``PictureKind/isCard``): the card's own
    /// size and words worked out from `route` as the coordinator would from a stored run (its
    /// distance, its first and last times, no device figures), in metric; other kinds unchanged.
    func withBenchCard(route: Route) -> PictureSpec {
        guard let size = kind.declaration.size else { return self }
        var spec = self
        spec.width = size.width
        spec.height = size.height
        let times = route.points.compactMap(\.time)
        let figures = WorkoutFigures(
            start: times.min(), end: times.max(), timeZoneOffset: 3600, distance: TrackFigures.distance(of: route), heartRateAverage: 141)
        spec.card = ShareCardText(figures: figures, activity: .running, units: .metric)
        return spec
    }
}
