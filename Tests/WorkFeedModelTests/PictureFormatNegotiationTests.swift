import Testing
import WorkFeedModel

@Suite struct PictureFormatNegotiationTests {
    @Test func aFormatParameterDecidesAloneAndABadOneIsRefusedByName() throws {
        let webp = try PictureFormat.negotiate(format: "webp", accept: "image/png")
        #expect(webp.format == .webp && !webp.byAccept)
        let png = try PictureFormat.negotiate(format: "png", accept: "image/webp")
        #expect(png.format == .png && !png.byAccept)
        let error = #expect(throws: PictureFormatParameterError.self) { try PictureFormat.negotiate(format: "gif", accept: nil) }
        #expect(error?.parameter == "format")
        #expect(error?.description == "format 'gif' is not a picture format: one of png, webp")
        #expect(throws: PictureFormatParameterError.self) { try PictureFormat.negotiate(format: "WEBP", accept: nil) }
        #expect(throws: PictureFormatParameterError.self) { try PictureFormat.negotiate(format: "", accept: nil) }
    }

    @Test(arguments: [
        // What phones and browsers send for images.
        ("image/webp,image/avif,image/*,*/*;q=0.8", PictureFormat.webp),
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", .webp),
        ("image/webp", .webp),
        ("image/png;q=0.5, image/webp;q=0.9", .webp),
        // The PNG unless WebP is named above it.
        ("image/png,image/webp", .png),
        ("image/webp;q=0.5, image/*", .png),
        ("*/*", .png),
        ("image/*", .png),
        ("image/webp;q=0", .png),
        ("image/webp;q=banana", .png),
        ("", .png),
        (";;,,;q=,=", .png),
        ("text/html", .png),
    ])
    func acceptChoosesWebPOnlyWhenItNamesIt(accept: String, format: PictureFormat) throws {
        let choice = try PictureFormat.negotiate(format: nil, accept: accept)
        #expect(choice.format == format && choice.byAccept)
    }

    @Test func withoutAHeaderThePNGAndTheAnswerStillVariesByAccept() throws {
        let choice = try PictureFormat.negotiate(format: nil, accept: nil)
        #expect(choice.format == .png && choice.byAccept)
    }
}
