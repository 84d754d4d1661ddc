import Foundation
import Testing
@testable import WorkFeedImport
import WorkFeedModel

@Suite struct XMLPullReaderTests {
    private func events(_ text: String, whitespace: Bool = false) throws(ImportError) -> [String] {
        try XMLEventLog.events(Array(text.utf8), options: .init(reportsWhitespaceText: whitespace))
    }

    private func error(_ text: String) -> ImportError? {
        #expect(throws: ImportError.self) { try events(text) }
    }

    @Test func reportsElementsAttributesTextCommentsAndInstructions() throws {
        let log = try events(
            """
            <?xml version="1.0"?>
            <!-- a comment -->
            <root a="1" b='two'>
              <child>text</child>
              <empty x="y"/>
              <?target some data?>
            </root>
            """)
        #expect(
            log == [
                "2 comment  a comment ",
                "3 start root a=1 b=two",
                "4 start child ",
                "4 text text",
                "4 end child",
                "5 start empty x=y",
                "5 end empty",
                "6 pi target some data",
                "7 end root",
                "end",
            ])
    }

    @Test func reportsWhitespaceTextOnlyWhenAsked() throws {
        #expect(try events("<a> <b/> </a>") == ["1 start a ", "1 start b ", "1 end b", "1 end a", "end"])
        #expect(
            try events("<a> <b/> </a>", whitespace: true)
                == ["1 start a ", "1 text  ", "1 start b ", "1 end b", "1 text  ", "1 end a", "end"])
    }

    @Test func decodesPredefinedEntitiesAndCharacterReferences() throws {
        let log = try events("<a t=\"&lt;&amp;&quot;\">&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</a>")
        #expect(log[0] == "1 start a t=<&\"")
        #expect(log[1] == "1 text <>&\"'AB😀")
    }

    @Test func mergesCDATAWithText() throws {
        let log = try events("<a>x<![CDATA[<b>&amp;]]>y</a>")
        #expect(log[1] == "1 text x<b>&amp;y")
    }

    @Test func normalizesLineEnds() throws {
        let log = try events("<a\r\n v=\"1\r\n2\">x\r\ny\rz</a>")
        #expect(log[0] == "1 start a v=1 2")
        #expect(log[1] == "3 text x\ny\nz")
    }

    @Test func resolvesNamespacesByURINotPrefix() throws {
        let log = try events(
            """
            <r xmlns="urn:default" xmlns:p="urn:one" xmlns:q="urn:one">
            <p:x/><q:x p:attr="v"/><y xmlns=""/><z/>
            </r>
            """)
        #expect(log.contains("2 start {urn:one}x "))
        #expect(log.filter { $0 == "2 start {urn:one}x " }.count == 1)
        #expect(log.contains("2 start {urn:one}x {urn:one}attr=v"))
        #expect(log.contains("2 start y {http://www.w3.org/2000/xmlns/}xmlns="))
        #expect(log.contains("2 start {urn:default}z "))
    }

    @Test func scopesNamespaceDeclarationsToTheirElement() throws {
        let log = try events("<r><a xmlns:p=\"urn:a\"><p:x/></a><b xmlns:p=\"urn:b\"><p:x/></b></r>")
        #expect(log.contains("1 start {urn:a}x "))
        #expect(log.contains("1 start {urn:b}x "))
        #expect(error("<r><a xmlns:p=\"urn:a\"/><p:x/></r>")?.message.contains("undeclared namespace prefix 'p'") == true)
    }

    @Test func skipsADoctypeWithAnInternalSubset() throws {
        let log = try events(
            """
            <?xml version="1.0"?>
            <!DOCTYPE r [
              <!ELEMENT r (#PCDATA)>
              <!-- a ] in a comment, and a > too -->
              <!ATTLIST r v CDATA "x>y">
            ]>
            <r>ok</r>
            """)
        #expect(log == ["7 start r ", "7 text ok", "7 end r", "end"])
    }

    @Test func readsTheAppleHealthExportWithItsDTD() throws {
        var reader = XMLPullReader(bytes: try Fixture.bytes("apple-health/tdda_export_with-doctype-dtd.xml"), file: "export.xml")
        var root: XMLName?
        var records = 0
        while true {
            let event = try reader.next()
            if event == .endDocument { break }
            if event == .startElement {
                if root == nil { root = reader.name }
                if reader.name.local == "Record" { records += 1 }
            }
        }
        #expect(root?.local == "HealthData")
        #expect(records == 15)
    }

    /// The "billion laughs": entities declared in the DTD are never expanded, so the reference is
    /// an error and nothing grows.
    @Test func refusesEntityExpansionBombs() {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
              <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
            ]>
            <lolz>&lol9;</lolz>
            """
        let failure = error(bomb)
        #expect(failure?.line == 8)
        #expect(failure?.message.contains("undefined entity &lol9;") == true)
    }

    @Test func neverFetchesExternalEntities() {
        let failure = error("<!DOCTYPE r [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n<r>&xxe;</r>")
        #expect(failure?.line == 2)
        #expect(failure?.message.contains("undefined entity &xxe;") == true)
    }

    @Test(arguments: [
        ("<a><b></a>", 1, "mismatched tag: </a> closes <b>"),
        ("<a>\n<b>\n", 3, "unexpected end of file: <b> opened at line 2 is not closed"),
        ("<a x=\"1", 1, "unexpected end of file inside a tag"),
        ("<a></a><b/>", 1, "a second root element <b>"),
        ("hello", 1, "text outside the root element"),
        ("", 1, "no root element"),
        ("<a>\u{1}</a>", 1, "not allowed in XML"),
        ("<a x=1/>", 1, "not quoted"),
        ("<a x=\"1\" x=\"2\"/>", 1, "appears twice"),
        ("<a y=\"0\" x=\"1\" z=\"0\" x=\"2\"/>", 1, "appears twice"),
        ("<a xmlns:p=\"u\" xmlns:q=\"u\" p:x=\"1\" q:x=\"2\"/>", 1, "appears twice"),
        ("<a xmlns=\"u\" xmlns=\"v\"/>", 1, "appears twice"),
        ("<a x=\"<\"/>", 1, "'<' is not allowed in an attribute value"),
        ("<a>&#0;</a>", 1, "not a valid character reference"),
        ("<a>AT&T</a>", 1, "does not start a reference"),
        ("<a>\n\n<b x=\"1\"y=\"2\"/></a>", 3, "unexpected 'y'"),
        ("<?xml version=\"1.0\" encoding=\"EBCDIC\"?><a/>", 1, "unsupported encoding 'EBCDIC'"),
        ("<a/><?xml version=\"1.0\"?>", 1, "XML declaration is only allowed at the very start"),
        ("<a>< b/></a>", 1, "'<' not followed by a name"),
        ("<a><!-- unclosed", 1, "unexpected end of file inside a comment"),
    ])
    func reportsMalformedDocuments(text: String, line: Int, message: String) {
        let failure = error(text)
        #expect(failure?.file == "test.xml")
        #expect(failure?.line == line)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
    }

    @Test func decodesReferencesAndWhiteSpaceInRuns() throws {
        var reader = XMLPullReader(
            bytes: Array(
                "<a v=\"x&lt;y&#65;&#x42;\tz\r\nw&amp;&quot;&apos;&gt;\" d=\"&lt;&lt;HKDevice: 0x1&gt;, name:Watch&gt;\">1&gt;0\r\n&quot;x&apos;</a>"
                    .utf8),
            file: "t.xml")
        #expect(try reader.next() == .startElement)
        #expect(reader.attribute("v") == "x<yAB z w&\"'>")
        #expect(reader.attribute("d") == "<<HKDevice: 0x1>, name:Watch>")
        #expect(try reader.next() == .text)
        #expect(reader.textString == "1>0\n\"x'")
    }

    @Test func attributesWithTheSameLocalNameInOtherNamespacesAreDistinct() throws {
        #expect(try events("<a x=\"1\" p:x=\"2\" xmlns:p=\"u\" y=\"3\"/>").count == 3)
        #expect(try events("<a xmlns:p=\"u\" xmlns:q=\"v\" p:x=\"1\" q:x=\"2\"/>").count == 3)
    }

    @Test func refusesUTF16AndBinaryData() throws {
        let utf16 = [UInt8]([0xFF, 0xFE]) + Array("<a/>".utf8).flatMap { [$0, 0] }
        #expect(throws: ImportError.self) { try XMLEventLog.events(utf16) }
        let binary: [UInt8] = [0x0E, 0x10, 0x43, 0x08, 0x00, 0x00, 0x2E, 0x46, 0x49, 0x54, 0x00, 0x00]
        #expect(throws: ImportError.self) { try XMLEventLog.events(binary) }
    }

    @Test func skipsAUTF8ByteOrderMark() throws {
        #expect(try XMLEventLog.events([0xEF, 0xBB, 0xBF] + Array("<a>é</a>".utf8)) == ["1 start a ", "1 text é", "1 end a", "end"])
    }

    @Test func transcodesLatin1AndWindows1252() throws {
        let latin1 =
            Array("<?xml version='1.0' encoding='ISO-8859-1'?><a v='".utf8) + [0xE9] + Array("'>caf".utf8) + [0xE9, 0xA0]
            + Array("</a>".utf8)
        #expect(try XMLEventLog.events(latin1) == ["1 start a v=é", "1 text café\u{A0}", "1 end a", "end"])
        let windows = Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<a>".utf8) + [0x80, 0x93, 0x94] + Array("</a>".utf8)
        #expect(try XMLEventLog.events(windows)[1] == "2 text €“”")
    }

    @Test func skipsAndGathersElementText() throws {
        var reader = XMLPullReader(bytes: Array("<a><b>x<!--c--><i>skip</i>y<![CDATA[z]]></b><c/></a>".utf8), file: "t")
        #expect(try reader.next() == .startElement)
        #expect(try reader.next() == .startElement)
        try reader.readElementText()
        #expect(reader.textString == "xyz")
        #expect(try reader.next() == .startElement)
        #expect(reader.name.local == "c")
        try reader.skipElement()
        #expect(try reader.next() == .endElement)
        #expect(try reader.next() == .endDocument)
    }

    /// Reading from a source in chunks must give exactly the events of reading the whole buffer,
    /// whichever token a chunk boundary falls in.
    @Test(
        arguments: Fixture.files(in: "gpx-edge", extension: "gpx") + Fixture.files(in: "tcx", extension: "tcx").prefix(4)
            + ["apple-health/tdda_export_with-doctype-dtd.xml"])
    func chunkedSourceGivesTheSameEvents(path: String) throws {
        let bytes = try Fixture.bytes(path)
        let whole = Result { () throws(ImportError) in try XMLEventLog.events(bytes) }
        let chunkSizes = bytes.count < 16_000 ? [1, 5, 64] : [7, 4093]
        for chunkSize in chunkSizes {
            var reader = XMLPullReader(
                source: XMLChunkedArraySource(bytes, chunkSize: chunkSize), file: "test.xml", options: .init(chunkSize: chunkSize))
            let chunked = Result { () throws(ImportError) in try XMLEventLog.events(&reader) }
            switch (whole, chunked) {
            case (.success(let expected), .success(let actual)):
                #expect(actual == expected, "chunk size \(chunkSize)")
            case (.failure(let expected), .failure(let actual)):
                #expect(actual == expected, "chunk size \(chunkSize)")
            default:
                Issue.record("chunk size \(chunkSize): \(whole) vs \(chunked)")
            }
        }
    }

    @Test func readsAFileInChunks() throws {
        let url = try Fixture.url("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
        var reader = XMLPullReader(source: try XMLFileSource(path: url.path), file: url.path, options: .init(chunkSize: 1000))
        let events = try XMLEventLog.events(&reader)
        #expect(events == (try XMLEventLog.events(try Fixture.bytes("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx"))))
        #expect(events.filter { $0.contains("start {http://www.topografix.com/GPX/1/1}trkpt") }.count == 42)
    }
}
