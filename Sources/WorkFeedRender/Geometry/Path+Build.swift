import Foundation
import WorkFeedModel

extension Path {
    /// The second pass over the route: projects usable points straight into pixels, cuts the
    /// route into `pieces` pieces of equal ground length (heatmaps, pace and elevation pictures),
    /// sums what each piece moved and climbed through (``PieceMeasures``), and simplifies each run.
    ///
    /// It repeats ``RouteScan``'s choices (null island, unwrapping, distances) with the same
    /// functions in the same order, so piece boundaries fall where the scan's length says.
    mutating func build(route: Route, scan: RouteScan, fit: PictureFit, pieces: Int, tolerance: Float) {
        reset(pieces: pieces)
        var unwrapper = LongitudeUnwrapper()
        let mercator = LocalMercator(minLatitude: scan.minLatitude, maxLatitude: scan.maxLatitude)
        var simplifier = Simplifier(tolerance: tolerance)
        let dropsNullIsland = scan.dropsNullIsland
        let cuts = pieces > 1 && scan.length > 0
        let pieceLength = scan.length / Double(pieces)
        var piece = 0
        var travelled = 0.0
        var nextBoundary = pieceLength
        var hasFirst = false

        for segment in route.segments {
            var previous: (latitude: Double, longitude: Double, pixel: SIMD2<Float>, time: Double?, altitude: Double?)?
            var runStart = vertices.count
            var runButt = false
            for point in segment where point.isUsable(droppingNullIsland: dropsNullIsland) {
                let longitude = unwrapper.unwrap(point.longitude)
                let pixel = fit.pixel(x: WebMercator.x(longitude: longitude), y: mercator.y(latitude: point.latitude))
                let time = point.time.map(\.timeIntervalSinceReferenceDate).flatMap { $0.isFinite ? $0 : nil }
                let altitude = point.elevation.flatMap { TrackFigures.plausibleAltitude.contains($0) ? $0 : nil }
                if let previous {
                    if cuts {
                        let step = groundDistance(
                            latitude: previous.latitude, longitude: previous.longitude,
                            latitude: point.latitude, longitude: longitude, eastScale: scan.eastScale)
                        let reached = travelled + step
                        let ends = ((previous.time, previous.altitude), (time, altitude))
                        var credited = 0.0
                        while piece < pieces - 1, reached > nextBoundary {
                            let fraction = (nextBoundary - travelled) / step
                            measures.credit(piece, portion: fraction - credited, length: step, from: ends.0, to: ends.1)
                            credited = fraction
                            let cut = previous.pixel + (pixel - previous.pixel) * Float(fraction)
                            var cutTime: Double?
                            if let t0 = previous.time, let t1 = time { cutTime = t0 + (t1 - t0) * fraction }
                            simplifier.add(cut, into: &vertices)
                            simplifier.finish(into: &vertices)
                            runs.append(Run(start: runStart, end: vertices.count, piece: piece, buttStart: runButt))
                            note(cutTime, piece: piece)
                            piece += 1
                            nextBoundary = pieceLength * Double(piece + 1)
                            note(cutTime, piece: piece)
                            runStart = vertices.count
                            runButt = true
                            simplifier.begin(cut, into: &vertices)
                        }
                        measures.credit(piece, portion: 1 - credited, length: step, from: ends.0, to: ends.1)
                        travelled = reached
                    }
                    simplifier.add(pixel, into: &vertices)
                } else {
                    runStart = vertices.count
                    runButt = false
                    simplifier.begin(pixel, into: &vertices)
                    if !hasFirst {
                        first = pixel
                        hasFirst = true
                    }
                }
                note(time, piece: piece)
                last = pixel
                previous = (point.latitude, longitude, pixel, time, altitude)
            }
            if previous != nil {
                simplifier.finish(into: &vertices)
                runs.append(Run(start: runStart, end: vertices.count, piece: piece, buttStart: runButt))
            }
        }
    }

    private mutating func note(_ time: Double?, piece: Int) {
        guard let time else { return }
        pieceFirstTime[piece] = min(pieceFirstTime[piece], time)
        pieceLastTime[piece] = max(pieceLastTime[piece], time)
    }
}
