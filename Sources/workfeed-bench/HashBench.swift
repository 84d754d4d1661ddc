import Crypto
import Foundation
import WorkFeedConfig
import WorkFeedModel
import WorkFeedStyle

/// The "hash" group: WorkFeedModel's ``WorkFeedModel/SHA256`` against swift-crypto's
/// `Crypto.SHA256` (BoringSSL on Linux) used directly, on the two paths where WorkFeed hashes.
/// Until issue 11, WorkFeedModel's was a hand-written implementation, and this group chose
/// between the two (docs/benchmarks.md, "Hashing"); it is now a wrapper around swift-crypto's, and
/// the group measures what the wrapper costs.
///
/// The paths:
/// - cache keys, as the coordinator makes one for every job it hands out: the spec hasher (fed the
///   prefix and the spec's JSON once per spec) is copied, the route hash (and for heatmaps the
///   heart-rate hash) appended, and the digest finalised to hex (``PictureSpec/cacheKey(kind:specHasher:routeHash:heartRateHash:privacy:)``);
/// - large buffers: a series or an original file, 1 MiB.
///
/// Both implementations run in turn within each run, so that load from other processes on the
/// shared cores falls on both alike; times are the thread's CPU time. Before timing, both must
/// give the same digests for every key and for inputs of every length up to 300 bytes fed in two
/// parts split at every point (the hasher copied between the parts); a difference stops the bench.
enum HashBench {
    static let keysPerRun = 100_000
    static let bufferSize = 1 << 20

    static func run(options: BenchOptions) throws {
        let configuration = CoordinatorConfiguration()
        // A map picture's spec, as the coordinator makes it with a basemap: the longest JSON.
        let basemap = WorkFeedModel.SHA256.hex(Array("bench basemap".utf8))
        var generator = SplitMix64(seed: 11)
        let seriesHashes = (0..<keysPerRun).map { _ in
            (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next()) }.hexString
        }
        let buffer = (0..<bufferSize).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try checkDigests(buffer: buffer)

        print(
            "## hash (SHA-256: WorkFeedModel.SHA256 against swift-crypto \(cryptoBackend) used directly; thread CPU time, "
                + "median of \(options.runs) runs after 3 warm-ups, the two alternating)")
        print("cache keys: \(keysPerRun) a run, each a copy of the spec's hasher, the series hashes appended, finalised to hex")
        print("kind      spec B  implementation   ns/key   keys/s      time vs WorkFeedModel")
        for kind in PictureKind.allCases {
            let encodedSpec = PictureSpec(
                kind: kind, theme: .light, width: configuration.pictureWidth, height: configuration.pictureHeight, scale: 1,
                style: RouteStyle.light, heatmap: configuration.heatmap,
                ramp: RampStyle.standard(for: kind, activity: .running, units: .metric), map: MapStyle.light,
                basemap: basemap
            ).encoded()
            let own = PictureSpec.specHasher(encodedSpec: encodedSpec)
            let crypto = CryptoCacheKey.specHasher(encodedSpec: encodedSpec)
            for (index, routeHash) in seriesHashes.enumerated() {
                let heartRateHash = seriesHashes[keysPerRun - 1 - index]
                let expected = PictureSpec.cacheKey(kind: kind, specHasher: own, routeHash: routeHash, heartRateHash: heartRateHash)
                let got = CryptoCacheKey.cacheKey(kind: kind, specHasher: crypto, routeHash: routeHash, heartRateHash: heartRateHash)
                guard expected == got else {
                    throw HashMismatch("cache key \(index) (\(kind)): WorkFeedModel \(expected), swift-crypto \(got)")
                }
            }
            var sink = 0
            let times = alternating(
                runs: options.runs,
                {
                    for (index, routeHash) in seriesHashes.enumerated() {
                        sink &+=
                            PictureSpec.cacheKey(
                                kind: kind, specHasher: own, routeHash: routeHash, heartRateHash: seriesHashes[keysPerRun - 1 - index]
                            ).utf8.count
                    }
                },
                {
                    for (index, routeHash) in seriesHashes.enumerated() {
                        sink &+=
                            CryptoCacheKey.cacheKey(
                                kind: kind, specHasher: crypto, routeHash: routeHash, heartRateHash: seriesHashes[keysPerRun - 1 - index]
                            ).utf8.count
                    }
                })
            precondition(sink > 0)
            let ownNanoseconds = Measure.milliseconds(Measure.median(times.first)) * 1e6 / Double(keysPerRun)
            let cryptoNanoseconds = Measure.milliseconds(Measure.median(times.second)) * 1e6 / Double(keysPerRun)
            for (name, nanoseconds) in [("WorkFeedModel", ownNanoseconds), ("Crypto direct", cryptoNanoseconds)] {
                print(
                    RenderBench.pad(kind.rawValue, 10) + RenderBench.pad("\(encodedSpec.count)", 8) + RenderBench.pad(name, 17)
                        + RenderBench.pad(Measure.format(nanoseconds, 0), 9) + RenderBench.pad(Measure.format(1e3 / nanoseconds, 2) + " M", 12)
                        + (name == "WorkFeedModel"
                            ? "" : "\(nanoseconds < ownNanoseconds ? "" : "+")\(Measure.format((nanoseconds / ownNanoseconds - 1) * 100, 0)) %"))
            }
        }

        print("large buffers: \(bufferSize >> 20) MiB a hash")
        print("implementation   ms/MiB   MB/s")
        var sink = 0
        let times = alternating(
            runs: options.runs,
            { sink &+= Int(WorkFeedModel.SHA256.hex(buffer).utf8.first ?? 0) },
            { sink &+= Int(Crypto.SHA256.hash(data: buffer).withUnsafeBytes { Array($0) }.hexString.utf8.first ?? 0) })
        precondition(sink > 0)
        for (name, durations) in [("WorkFeedModel", times.first), ("Crypto direct", times.second)] {
            let milliseconds = Measure.milliseconds(Measure.median(durations))
            print(
                RenderBench.pad(name, 17) + RenderBench.pad(Measure.format(milliseconds, 3), 9)
                    + Measure.format(Double(bufferSize) / 1e6 / (milliseconds / 1000), 0))
        }
        print("digests: identical (every key above, the 1 MiB buffer, every length 0-300 split at every point)")
    }

    /// Thread CPU times of `first` and `second`, run in turn: 3 warm-ups each, then `runs` each.
    private static func alternating(runs: Int, _ first: () -> Void, _ second: () -> Void) -> (first: [Duration], second: [Duration]) {
        var result: (first: [Duration], second: [Duration]) = ([], [])
        for run in 0..<(runs + 3) {
            let started = Measure.threadCPUTime()
            first()
            let between = Measure.threadCPUTime()
            second()
            let ended = Measure.threadCPUTime()
            guard run >= 3 else { continue }
            result.first.append(between - started)
            result.second.append(ended - between)
        }
        return result
    }

    /// Stops the bench unless both implementations agree on the buffer and on every length up to
    /// 300 bytes, fed in two parts split at every point, with the first part's hasher copied as
    /// the coordinator copies a spec's hasher.
    private static func checkDigests(buffer: [UInt8]) throws {
        let own = WorkFeedModel.SHA256.hex(buffer)
        let crypto = Crypto.SHA256.hash(data: buffer).hexString
        guard own == crypto else { throw HashMismatch("the \(buffer.count)-byte buffer: WorkFeedModel \(own), swift-crypto \(crypto)") }
        for length in 0...300 {
            let bytes = Array(buffer[..<length])
            for split in 0...length {
                var ownFirst = WorkFeedModel.SHA256()
                ownFirst.update(bytes[..<split])
                var ownCopy = ownFirst
                ownCopy.update(bytes[split...])
                var cryptoFirst = Crypto.SHA256()
                cryptoFirst.update(data: bytes[..<split])
                var cryptoCopy = cryptoFirst
                cryptoCopy.update(data: bytes[split...])
                let ownDigest = ownCopy.finalize().hexString
                let cryptoDigest = cryptoCopy.finalize().hexString
                guard ownDigest == cryptoDigest else {
                    throw HashMismatch("\(length) bytes split at \(split): WorkFeedModel \(ownDigest), swift-crypto \(cryptoDigest)")
                }
            }
        }
    }

    #if canImport(CryptoKit)
    static let cryptoBackend = "(CryptoKit)"
    #else
    static let cryptoBackend = "(BoringSSL)"
    #endif
}

/// ``PictureSpec/cacheKey(kind:specHasher:routeHash:heartRateHash:privacy:)`` over swift-crypto,
/// byte for byte the same input (CacheKey.swift).
private enum CryptoCacheKey {
    static func specHasher(encodedSpec: [UInt8]) -> Crypto.SHA256 {
        var hasher = Crypto.SHA256()
        update(&hasher, "workfeed-cache-key-v1\nrenderer=\(BuildInfo.rendererVersion)\nspec=")
        hasher.update(data: encodedSpec)
        return hasher
    }

    static func cacheKey(kind: PictureKind, specHasher: Crypto.SHA256, routeHash: String, heartRateHash: String) -> String {
        var hasher = specHasher
        update(&hasher, "\nroute=\(routeHash)")
        if kind.usesHeartRate { update(&hasher, "\nheartrate=\(heartRateHash)") }
        // Through a buffer, as WorkFeedModel.SHA256 does: iterating the digest a byte at a time
        // costs about 100 ns a key.
        return hasher.finalize().withUnsafeBytes { Array($0) }.hexString
    }

    private static func update(_ hasher: inout Crypto.SHA256, _ text: String) {
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }
}

/// The two implementations gave different digests for the same input.
struct HashMismatch: Error, CustomStringConvertible {
    var description: String
    init(_ what: String) { description = "SHA-256 DIGESTS DIFFER for \(what)" }
}
