import Foundation
import WorkFeedModel
import WorkFeedRender
import WorkFeedWire

/// Pictures rendered outside the system, by `workctl render` in a process of its own from the same
/// files: what every PNG in the cache must equal, byte for byte. `workctl render` computes the cache
/// key as the coordinator does (same spec, same series hashes) and writes it into the PNG, so the
/// key joins a reference to its job.
struct ReferencePictures {
    var byKey: [String: [UInt8]] = [:]
    var count: Int { byKey.count }

    init(files: WorkoutFiles, kinds: [JobKind], themes: [Theme], scales: [Int], system: ChaosSystem, into directory: URL) throws {
        // One workctl per kind and scale, side by side.
        let outputs = kinds.flatMap { kind in scales.map { (kind, $0, directory.appendingPathComponent("\(kind.rawValue)@\($0)x")) } }
        let workctl = system.binaries.appendingPathComponent("workctl")
        let results = try runConcurrently(
            outputs.map { kind, scale, out in
                (
                    workctl,
                    [
                        "render", files.directory.path, "--kind", kind.rawValue, "--theme", themes.map(\.rawValue).joined(separator: ","),
                        "--scale", "\(scale)", "--out", out.path,
                    ]
                )
            }, timeout: 1800)
        for ((kind, scale, out), result) in zip(outputs, results) {
            // 2: some workouts cannot be drawn (on purpose: no route, no heart rate).
            guard result.status == 0 || result.status == 2 else {
                throw ChaosFailure("workctl render --kind \(kind.rawValue) --scale \(scale) exited \(result.status):\n\(result.output)")
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: out.path) where name.hasSuffix(".png") {
                let png = try [UInt8](Data(contentsOf: out.appendingPathComponent(name)))
                guard let key = PNGCodec.textChunks(png)["workfeed:cache-key"] else {
                    throw ChaosFailure("the reference \(name) has no workfeed:cache-key text chunk")
                }
                byKey[key] = png
            }
        }
    }
}

/// Checks the index's final state and the cache against what the inputs say.
struct Verification {
    var generated = 0
    var failedAsExpected = 0
    var bytesCompared = 0
    var problems: [String] = []

    /// - Parameters:
    ///   - allowOtherWorkouts: workouts that are not from `files` (a fuzzer's imports) are left alone.
    init(
        feed: [WorkoutWithPictures], files: WorkoutFiles, kinds: [JobKind], themes: [Theme], scales: [Int], cacheDirectory: String,
        references: ReferencePictures, allowOtherWorkouts: Bool = false
    ) {
        let byName = Dictionary(feed.map { ($0.workout.name ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        for item in feed {
            let name = item.workout.name ?? "(no name)"
            if files.entries.contains(where: { $0.name == name }) {
                if !seen.insert(name).inserted { problems.append("workout \(name) is in the index twice") }
            } else if !allowOtherWorkouts {
                problems.append("workout \(item.workout.id) (\(name)) was not imported by the test")
            }
        }
        for entry in files.entries {
            guard let item = byName[entry.name] else {
                problems.append("workout \(entry.name) is missing from the feed")
                continue
            }
            // A workout without heart rate has no heatmap job at all (enqueue skips it).
            let entryKinds = entry.variant == .noHeartRate ? kinds.filter { $0 != .heatmap } : kinds
            let expectedCount = entryKinds.count * themes.count * scales.count
            if item.pictures.count != expectedCount {
                problems.append("\(entry.name): \(item.pictures.count) pictures, expected \(expectedCount)")
            }
            for kind in entryKinds {
                for theme in themes {
                    for scale in scales {
                        let label = "\(entry.name) \(kind.rawValue) \(theme.rawValue) @\(scale)x"
                        guard
                            let picture = item.pictures.first(where: {
                                $0.picture == PictureID(workoutID: item.workout.id, kind: kind, theme: theme, scale: scale)
                            })
                        else {
                            problems.append("\(label): no job")
                            continue
                        }
                        check(
                            picture, label: label, expectedFailure: Self.expectedFailure(entry.variant, kind), cacheDirectory: cacheDirectory,
                            references: references)
                    }
                }
            }
        }
    }

    /// The reason the inputs give for a picture that cannot be drawn; `nil` when it can.
    static func expectedFailure(_ variant: WorkoutFiles.Variant, _ kind: JobKind) -> String? {
        switch (variant, kind) {
        case (.waypointsOnly, _): "no route"
        default: nil
        }
    }

    private mutating func check(
        _ picture: PictureRecord, label: String, expectedFailure: String?, cacheDirectory: String, references: ReferencePictures
    ) {
        if let expectedFailure {
            if picture.status == .failedNoRetry && picture.reason == expectedFailure {
                failedAsExpected += 1
            } else {
                problems.append(
                    "\(label): \(picture.status.rawValue) (\(picture.reason ?? "no reason")), expected failed-no-retry \"\(expectedFailure)\"")
            }
            return
        }
        guard picture.status == .generated else {
            problems.append("\(label): \(picture.status.rawValue) (\(picture.reason ?? "no reason")), expected generated")
            return
        }
        guard let key = picture.cacheKey else {
            problems.append("\(label): generated without a cache key")
            return
        }
        let path = cacheDirectory + "/" + picture.relativePath
        guard let data = FileManager.default.contents(atPath: path) else {
            problems.append("\(label): generated, but \(path) does not exist")
            return
        }
        let png = [UInt8](data)
        do {
            let image = try PNGCodec.decode(png)
            let side = 512 * picture.picture.scale
            if image.width != side || image.height != side {
                problems.append("\(label): \(image.width)x\(image.height) pixels, expected \(side)x\(side)")
            }
        } catch {
            problems.append("\(label): \(path) does not decode: \(error)")
            return
        }
        if PNGCodec.textChunks(png)["workfeed:cache-key"] != key {
            problems.append("\(label): the PNG's cache key differs from the job's \(key)")
        }
        guard let reference = references.byKey[key] else {
            problems.append("\(label): no local render has the job's cache key \(key) (the coordinator's key differs from workctl render's)")
            return
        }
        if reference == png {
            bytesCompared += 1
        } else {
            let firstDifference = zip(reference, png).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(reference.count, png.count)
            problems.append(
                "\(label): \(path) differs from the local render (\(png.count) vs \(reference.count) bytes, first difference at byte \(firstDifference))"
            )
        }
        generated += 1
    }

    /// The first problems, for a failure message.
    func summary(limit: Int = 25) -> String {
        problems.prefix(limit).joined(separator: "\n") + (problems.count > limit ? "\n… and \(problems.count - limit) more" : "")
    }
}
