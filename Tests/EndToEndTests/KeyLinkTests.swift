import ArgumentParser
import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

/// By-content picture names (`keys/…`, docs/gateway.md): workers make them, and a coordinator
/// makes them at start for pictures drawn before them, checking each file's embedded key.
@Suite(.serialized) struct KeyLinkTests {
    @Test func picturesDrawnBeforeByContentNamesGetThemAtStart() throws {
        let first = try RunningSystem()
        var importing = try WorkCtl.parseAsRoot([
            "import", "--coordinator", first.endpoints.control, try fixture("strava_run_2015_short_gpxtpx-hr.gpx"),
        ])
        try importing.run()
        var enqueue = try WorkCtl.parseAsRoot([
            "enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--wait", "--coordinator", first.endpoints.control,
        ])
        try enqueue.run()
        var client = try first.client()
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        let pictures = try #require(feed.items.first).pictures
        #expect(pictures.count == 2 && pictures.allSatisfy { $0.status == .generated })
        let cache = first.configuration.cacheDirectory
        func keyed(_ picture: PictureRecord) -> String { cache + "/" + CacheLayout.relativePath(forKey: picture.cacheKey ?? "")! }
        // Workers named each picture by its key, the same file.
        for picture in pictures {
            #expect(FileManager.default.contentsEqual(atPath: keyed(picture), andPath: cache + "/" + picture.relativePath))
        }
        first.stop(keepingFiles: true)

        // A cache from before by-content names: none; and one picture's file holds another's bytes.
        try FileManager.default.removeItem(atPath: cache + "/keys")
        let light = try #require(pictures.first { $0.picture.theme == .light })
        let dark = try #require(pictures.first { $0.picture.theme == .dark })
        try FileManager.default.removeItem(atPath: cache + "/" + dark.relativePath)
        try FileManager.default.copyItem(atPath: cache + "/" + light.relativePath, toPath: cache + "/" + dark.relativePath)

        let second = try RunningSystem(workers: 0, directory: first.directory)
        defer { second.stop() }
        var named = false
        for _ in 0..<100 where !named {
            named = FileManager.default.fileExists(atPath: keyed(light))
            if !named { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(named)
        #expect(FileManager.default.contentsEqual(atPath: keyed(light), andPath: cache + "/" + light.relativePath))
        // The file under the dark picture's path carries the light picture's key: not named by the dark one's.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!FileManager.default.fileExists(atPath: keyed(dark)))
    }

    @Test func theEmbeddedKeyIsReadFromThePNGHead() {
        #expect(PNGText.value(of: "workfeed:cache-key", in: Array("not a png".utf8)) == nil)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 255), UInt8(length >> 8 & 255), UInt8(length & 255)] + Array(type.utf8) + data + [
                0, 0, 0, 0,
            ]
        }
        png += chunk("IHDR", Array(repeating: 0, count: 13))
        png += chunk("tEXt", Array("other\u{0}x".utf8))
        png += chunk("tEXt", Array("workfeed:cache-key\u{0}abc".utf8))
        #expect(PNGText.value(of: "workfeed:cache-key", in: png) == "abc")
        #expect(PNGText.value(of: "workfeed:cache-key", in: Array(png.dropLast(6))) == nil)  // cut off
        #expect(PNGText.value(of: "missing", in: png + chunk("IEND", [])) == nil)
    }
}
