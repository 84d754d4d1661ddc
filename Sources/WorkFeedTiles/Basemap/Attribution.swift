import Foundation

/// Turns a tileset's `attribution` metadata into the plain text drawn in a picture's corner.
///
/// Tilesets often store HTML (OpenMapTiles writes `<a href="…">© OpenMapTiles</a> <a …>©
/// OpenStreetMap contributors</a>`): tags are dropped, the entities such text uses are decoded,
/// and runs of white space become one space.
public enum Attribution {
    public static func plainText(_ html: String) -> String {
        var text = ""
        var inTag = false
        for character in html {
            if inTag {
                if character == ">" { inTag = false }
            } else if character == "<" {
                inTag = true
                text.append(" ")
            } else {
                text.append(character)
            }
        }
        for (entity, replacement) in entities {
            text = text.replacingOccurrences(of: entity, with: replacement)
        }
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The attributions of several tilesets in one line, each once, in order.
    public static func combined(_ texts: [String]) -> String {
        var seen: [String] = []
        for text in texts where !text.isEmpty && !seen.contains(text) { seen.append(text) }
        return seen.joined(separator: " · ")
    }

    private static let entities: [(String, String)] = [
        ("&copy;", "©"), ("&#169;", "©"), ("&#xA9;", "©"), ("&#xa9;", "©"), ("&nbsp;", " "), ("&quot;", "\""),
        ("&#39;", "'"), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"),
    ]
}
