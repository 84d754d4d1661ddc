/// Which format a request for a picture gets: the one decision the gateway's picture request and
/// feed are to ask (docs/rendering.md, "WebP"; not wired into them yet).
public struct PictureFormatChoice: Sendable, Hashable {
    public var format: PictureFormat
    /// Whether `Accept` chose it (no `format` parameter): the answer then varies by `Accept`, and
    /// must say `Vary: Accept`, whichever format it is.
    public var byAccept: Bool
}

/// A `format` parameter that names no format: a 400 naming the parameter and the names allowed.
public struct PictureFormatParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request's parameter that is wrong: always `format`.
    public let parameter = "format"
    /// What it said, cut to 64 characters.
    public var value: String

    public init(value: some StringProtocol) {
        self.value = String(value.prefix(64))
    }

    public var description: String { "format '\(value)' is not a picture format: one of \(PictureFormat.names)" }
}

extension PictureFormat {
    /// The format for a request with this `format` parameter and `Accept` header.
    ///
    /// - A `format` parameter decides alone (`png`, `webp`); any other value is refused.
    /// - Without one, `Accept` decides: another format than the PNG only when `Accept` names its
    ///   media type itself (`image/webp`) with a quality above 0 and above the PNG's (the PNG's is
    ///   its own entry's, else `image/*`'s, else `*/*`'s, else 0), or equal to it when the PNG is
    ///   reached only through a wildcard (`image/webp,image/*,*/*;q=0.8`, what browsers send). A
    ///   wildcard never picks a format the client did not name, since `*/*` is what clients that
    ///   cannot decode WebP send too. The PNG named as high, no header, and a header naming nothing
    ///   known give the PNG: a picture is never refused for its `Accept` (no 406).
    ///
    /// - Throws: ``PictureFormatParameterError`` for a `format` that names no format.
    public static func negotiate(format parameter: String?, accept: String?) throws(PictureFormatParameterError) -> PictureFormatChoice {
        if let parameter {
            guard let format = PictureFormat(rawValue: parameter) else { throw PictureFormatParameterError(value: parameter) }
            return PictureFormatChoice(format: format, byAccept: false)
        }
        let ranges = AcceptedRanges(accept ?? "")
        var best = PictureFormatChoice(format: standard, byAccept: true)
        var bestQuality = ranges.quality(of: standard.mediaType, orWildcards: true)
        // A format named in the header beats the PNG reached through a wildcard at the same quality.
        var bestNamed = ranges.names(standard.mediaType)
        for format in allCases where format != standard {
            let quality = ranges.quality(of: format.mediaType, orWildcards: false)
            if quality > 0, quality > bestQuality || (quality == bestQuality && !bestNamed) {
                best.format = format
                bestQuality = quality
                bestNamed = true
            }
        }
        return best
    }
}

/// The media ranges of an `Accept` header (RFC 9110, 12.5.1) with their qualities; anything that
/// does not parse is skipped, never trapped on.
private struct AcceptedRanges {
    var entries: [(type: String, quality: Double)] = []

    init(_ header: String) {
        // A header is bounded by the HTTP server's limits; at most 64 entries are read.
        for part in header.split(separator: ",").prefix(64) {
            let pieces = part.split(separator: ";")
            guard let first = pieces.first else { continue }
            let type = first.trimmingSpaces().lowercased()
            guard !type.isEmpty else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { continue }
                if let value = Double(pair[1].trimmingSpaces()), value.isFinite, (0...1).contains(value) {
                    quality = value
                } else {
                    quality = 0
                }
            }
            entries.append((type, quality))
        }
    }

    /// Whether the header names `mediaType` itself.
    func names(_ mediaType: String) -> Bool { entries.contains { $0.type == mediaType } }

    /// The quality of `mediaType`: its own entry's; else, with `orWildcards`, its `type/*`'s, else
    /// `*/*`'s; else 0.
    func quality(of mediaType: String, orWildcards: Bool) -> Double {
        if let own = entries.first(where: { $0.type == mediaType }) { return own.quality }
        guard orWildcards else { return 0 }
        let family = mediaType.split(separator: "/").first.map { "\($0)/*" } ?? ""
        if let range = entries.first(where: { $0.type == family }) { return range.quality }
        if let any = entries.first(where: { $0.type == "*/*" }) { return any.quality }
        return 0
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
