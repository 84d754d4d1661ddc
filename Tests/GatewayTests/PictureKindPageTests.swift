import Foundation
import Testing
@testable import WorkFeedGateway
import WorkFeedModel

/// Issue 27, goal 1: the feed page names no kind; the gateway writes each kind's words from its
/// declaration into the page, and the page shows the kinds a workout's `pictureKinds` list.
@Suite struct PictureKindPageTests {
    @Test func thePageGetsEveryKindsWordsFromItsDeclaration() throws {
        let html = String(decoding: FeedPageRoute.html, as: UTF8.self)
        #expect(!html.contains(FeedPageRoute.kindsPlaceholder), "the placeholder was filled in")
        let start = try #require(html.range(of: #"<script type="application/json" id="picture-kinds">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let block = Data(html[start.upperBound..<end.lowerBound].utf8)
        let texts = try #require(try JSONSerialization.jsonObject(with: block) as? [String: [String: String]])
        #expect(Set(texts.keys) == Set(PictureKind.allCases.map(\.rawValue)))
        for kind in PictureKind.allCases {
            #expect(texts[kind.rawValue] == ["label": kind.declaration.label, "drawing": kind.declaration.drawing], "\(kind)")
        }
        // The script reads them; no kind's name is written into it.
        let script = try #require(html.range(of: "\"use strict\";"))
        for kind in PictureKind.allCases {
            #expect(!html[script.lowerBound...].contains("\"\(kind.rawValue)\""), "\(kind) named in the page's script")
        }
    }
}
