import Testing
import WorkFeedModel

@Suite struct PictureFormatTests {
    static let key = "9c04" + String(repeating: "ab", count: 30)

    @Test func thePNGKeepsItsCacheKeyAndWebPHasItsOwn() {
        #expect(PictureFormat.png.contentKey(pictureKey: Self.key) == Self.key)
        let webp = PictureFormat.webp.contentKey(pictureKey: Self.key)
        #expect(webp != Self.key)
        #expect(CacheLayout.isCacheKey(webp))
        #expect(webp == PictureFormat.webp.contentKey(pictureKey: Self.key))
        #expect(webp != PictureFormat.webp.contentKey(pictureKey: "0" + Self.key.dropFirst()))
    }

    @Test func eachFormatNamesItsMediaTypeAndExtension() {
        #expect(PictureFormat.standard == .png)
        #expect(PictureFormat.png.mediaType == "image/png")
        #expect(PictureFormat.webp.mediaType == "image/webp")
        #expect(PictureFormat.allCases.map(\.fileExtension) == ["png", "webp"])
        #expect(PictureFormat.names == "png, webp")
        #expect(PictureFormat.webp.encoding?.identity == "lossy q75 m0")
        #expect(PictureFormat.png.encoding == nil)
    }
}

@Suite struct PictureFormatLayoutTests {
    @Test func theByContentNameHasTheFormatsExtensionAndThePNGKeepsTodays() throws {
        let key = PictureFormatTests.key
        #expect(CacheLayout.relativePath(forKey: key) == "keys/9c/\(key).png")
        #expect(CacheLayout.relativePath(forKey: key, format: .png) == "keys/9c/\(key).png")
        let webp = PictureFormat.webp.contentKey(pictureKey: key)
        let path = try #require(CacheLayout.relativePath(forKey: webp, format: .webp))
        #expect(path == "keys/\(webp.prefix(2))/\(webp).webp")
        #expect(CacheLayout.relativePath(forKey: "../etc", format: .webp) == nil)
    }
}
