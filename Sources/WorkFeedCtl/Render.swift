import ArgumentParser
import Foundation
import Logging
import WorkFeedConfig
import WorkFeedImport
import WorkFeedIndex
import WorkFeedModel
import WorkFeedRender
import WorkFeedTiles
import WorkFeedStyle
import WorkFeedStore
import WorkFeedThreads

extension WorkCtl {
    /// `workctl render FILE...`: draws pictures here, without a coordinator.
    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render pictures of workout files locally, without a coordinator (to check a style, or to measure).",
            discussion: """
                Styles come from --config (a coordinator configuration file) or the embedded defaults; \
                maps are drawn from --tileset (repeatable) or the configuration's basemap.tilesets, as a \
                worker with the same configuration draws them. \
                Each picture is written as <file name>[-<n>]_<kind>_<theme>[@<scale>x].png in --out. A \
                workout that cannot be drawn is reported with its reason; exits 2 if any could not.
                """)

        @Argument(help: "Workout files or folders.")
        var paths: [String]

        @Option(name: .long, help: "One of \(PictureKind.described).")
        var kind: PictureKind = PictureKind.drawnAhead[0]

        @Option(name: .long, help: "Themes, comma-separated: light, dark, or any the configuration's themes setting lists; a name is \(Theme.rule).")
        var theme = CommaList([Theme.light])

        @Option(name: .long, help: "Size in points, WIDTHxHEIGHT (default: the configuration's).")
        var size: String?

        @Option(name: .long, help: ArgumentHelp("\(PictureSpec.scaleNames)."))
        var scale: Int = 1

        @Option(name: .long, help: "The folder to write the PNGs into.")
        var out: String

        @Option(name: .long, help: "The units of a pace, elevation or share picture's figures: metric or imperial.")
        var units: UnitSystem = .metric

        @Option(name: .long, help: "A coordinator configuration file for the styles.")
        var config: String?

        @Option(
            name: .long,
            help: """
                A tileset to draw the map from: an MBTiles or PMTiles file, or a PMTiles archive by https:// URL or s3://bucket/key; \
                repeat for several, in the order to try.
                """
        )
        var tileset: [String] = []

        func validate() throws {
            guard PictureSpec.scaleRange.contains(scale) else { throw ValidationError("--scale must be one of \(PictureSpec.scaleNames)") }
            if let size { _ = try Self.parseSize(size) }
            for entry in tileset {
                do { _ = try TilesetLocation(parsing: entry) } catch { throw ValidationError("--tileset: \(error)") }
            }
        }

        static func parseSize(_ text: String) throws -> (Int, Int) {
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, (16...4096).contains(parts[0]), (16...4096).contains(parts[1]) else {
                throw ValidationError("--size must be WIDTHxHEIGHT in points, each 16...4096, not '\(text)'")
            }
            return (parts[0], parts[1])
        }

        func run() async throws {
            let configuration: CoordinatorConfiguration
            do {
                configuration = try await CoordinatorConfiguration.load(file: config, environment: [:])
            } catch {
                printError("\(error)")
                throw WorkCtlExit.failed
            }
            // Off Swift's cooperative pool: tiles are read from files, or by HTTP from a URL.
            try await BlockingWork.shared.run { [self] in try draw(configuration: configuration) }
        }

        /// Opens the tilesets, draws every workout of `paths` and writes the pictures.
        private func draw(configuration: CoordinatorConfiguration) throws {
            let (width, height) = try size.map(Self.parseSize) ?? (configuration.pictureWidth, configuration.pictureHeight)
            let themes = theme.values
            if let missing = themes.first(where: { configuration.themeStyle(for: $0) == nil }) {
                printError(
                    "--theme: the configuration has no theme \(missing) (its themes: \(configuration.drawnThemes.map(\.rawValue).joined(separator: ", ")))"
                )
                throw WorkCtlExit.failed
            }
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let files: [URL]
            do { files = try WorkoutFileReader.collectFiles(paths) } catch {
                printError("\(error)")
                throw WorkCtlExit.failed
            }
            let tilesets = tileset.isEmpty ? configuration.basemapTilesets : tileset
            var basemap: Basemap?
            if !tilesets.isEmpty {
                do {
                    basemap = try Basemap(
                        tilesetLocations: tilesets, access: TilesetAccess(s3: configuration.s3Store), fontPath: configuration.basemapFont,
                        fallbackFontPaths: configuration.basemapFallbackFonts,
                        attributionOverride: configuration.basemapAttribution, logger: Logger(label: "workctl"))
                } catch {
                    printError("\(error)")
                    throw WorkCtlExit.failed
                }
            }
            let renderer = Renderer(basemap: basemap)
            var written = 0
            var failures = 0
            var progress = ProgressLine(total: files.count, unit: "files")
            for (number, file) in files.enumerated() {
                defer { progress.update(done: number + 1) }
                let batch = WorkoutFileReader.readAll(contentsOf: file)
                for error in batch.errors {
                    progress.note("skipped \(error)")
                    failures += 1
                }
                let workouts = batch.workouts
                for (index, workout) in workouts.enumerated() {
                    let base = file.deletingPathExtension().lastPathComponent + (workouts.count > 1 ? "-\(index + 1)" : "")
                    let route = SeriesCodec.encode(workout.route)
                    let heartRate = SeriesCodec.encode(workout.heartRate)
                    // Drawn from the series as the index stores them and a worker receives them
                    // (coordinates to 1e-7 degree, times to the millisecond), not from the file's
                    // own precision: the same workout then gives the same bytes here and there.
                    let storedRoute: Route
                    let storedHeartRate: [HeartRateSample]
                    do {
                        storedRoute = try SeriesCodec.decodeRoute(route)
                        storedHeartRate = try SeriesCodec.decodeHeartRate(heartRate)
                    } catch {
                        progress.note("\(file.path): \(error)")
                        failures += 1
                        continue
                    }
                    // A card's words as the coordinator gives them for the stored workout.
                    let card =
                        kind.isCard
                        ? try? ShareCardText(
                            figures: PreparedImport(workout, owner: configuration.defaultOwner).figures, activity: workout.activity, units: units)
                        : nil
                    for theme in themes {
                        guard let look = configuration.themeStyle(for: theme) else { continue }
                        let spec = PictureSpec(
                            kind: kind, theme: theme, width: kind.declaration.size?.width ?? width,
                            height: kind.declaration.size?.height ?? height, scale: scale, style: look.route, heatmap: configuration.heatmap,
                            ramp: RampStyle.standard(for: kind, activity: workout.activity, units: units), card: card, map: look.map,
                            basemap: basemap?.identity.hash)
                        // As a worker would draw it for the default owner (an import without --owner,
                        // whose units are metric until they set theirs).
                        let key = PictureSpec.cacheKey(
                            kind: kind, specHasher: PictureSpec.specHasher(encodedSpec: spec.encoded()), routeHash: SHA256.hex(route),
                            heartRateHash: SHA256.hex(heartRate), owner: configuration.defaultOwner)
                        let name = "\(base)_\(kind.rawValue)_\(theme.rawValue)\(scale == 1 ? "" : "@\(scale)x").png"
                        do {
                            let png = try renderer.render(spec: spec, route: storedRoute, heartRate: storedHeartRate, cacheKey: key)
                            try Data(png).write(to: URL(fileURLWithPath: out).appendingPathComponent(name), options: .atomic)
                            written += 1
                            if basemap != nil, renderer.lastStatistics.mapCoverage != .full {
                                progress.note(
                                    "\(name): \(renderer.lastStatistics.mapCoverage == .none ? "no tileset covers it: plain background" : "the map covers only part of it")"
                                )
                            }
                        } catch let failure as RenderFailure {
                            progress.note("\(file.path): \(kind.rawValue) \(theme.rawValue): \(failure.reason)")
                            failures += 1
                        } catch {
                            progress.note("\(out)/\(name): cannot write: \(error.localizedDescription)")
                            failures += 1
                        }
                    }
                }
            }
            progress.finish()
            say("wrote \(written) pictures to \(out)" + (failures > 0 ? ", \(failures) failed" : ""))
            if failures > 0 { throw WorkCtlExit.partial }
        }
    }
}
