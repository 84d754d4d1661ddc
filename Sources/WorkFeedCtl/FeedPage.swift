import Foundation
import WorkFeedModel
import WorkFeedWire

/// The feed as a web page: what the app's list would show. Each workout's route picture, and each
/// other kind when one was asked for, follows the viewer's system theme (light or dark); a theme
/// of the configuration's beyond those two (docs/maps.md, "Themes") is shown beside them under
/// its name; a picture that failed shows its reason instead.
struct FeedPage {
    let items: [WorkoutWithPictures]
    let cacheDirectory: String
    let pageFile: String

    func render() -> String {
        var rows = ""
        for item in items {
            let w = item.workout
            let date = w.start.map { WorkoutFormat.localTime($0, offset: w.timeZoneOffset) } ?? "unknown date"
            var facts = [w.activity.rawValue.capitalized, WorkoutFormat.distance(w.distance)]
            if let moving = w.times.movingOrElapsed { facts.append(WorkoutFormat.duration(moving)) }
            if let average = w.heartRateAverage { facts.append("\(Int(average.rounded())) bpm") }
            rows += """
                <article>
                  <div class="pictures">\(PictureKind.allCases.filter { kind in kind.drawnAhead || item.pictures.contains { $0.picture.kind == kind } }.map { picture(for: item, kind: $0) }.joined())</div>
                  <div class="facts"><time>\(escape(date))</time>\(w.place.map { "<span class=\"place\">\(escape($0))</span>" } ?? "")<span>\(escape(facts.joined(separator: " · ")))</span>\(w.name.map { "<span class=\"name\">\(escape($0))</span>" } ?? "")</div>
                </article>

                """
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>WorkFeed</title>
            <style>
            body { font: 15px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1060px; padding: 16px; background: #fff; color: #1c1e21; }
            .pictures { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 512px)); gap: 12px; }
            @media (prefers-color-scheme: dark) { body { background: #0d0f12; color: #e6e6e6; } .placeholder { background: #1c1e21; } }
            article { margin: 0 0 24px; }
            img, .placeholder { width: 100%; aspect-ratio: 1; border-radius: 12px; display: block; }
            .placeholder { background: #f2f0eb; display: flex; align-items: center; justify-content: center; text-align: center; color: #8b949e; }
            figure { margin: 0; } figcaption { color: #8b949e; font-size: 13px; padding: 2px 4px; }
            .facts { display: flex; gap: 12px; flex-wrap: wrap; padding: 6px 2px; }
            time { font-weight: 600; }
            </style>
            </head>
            <body>
            <h1>WorkFeed</h1>
            \(rows)</body>
            </html>

            """
    }

    /// The kind's light picture (its dark one for a dark system theme), then one figure for each
    /// other theme the workout has the kind in, in name order.
    func picture(for item: WorkoutWithPictures, kind: PictureKind) -> String {
        let pictures = item.pictures.filter { $0.picture.kind == kind && $0.picture.scale == 1 }
        let others = Set(pictures.map(\.picture.theme)).subtracting(Theme.shipped).sorted()
        // Light and dark (or why not), unless the workout has the kind in other themes only.
        let hasShipped = pictures.contains { Theme.shipped.contains($0.picture.theme) }
        return (hasShipped || others.isEmpty ? pair(pictures, kind) : "")
            + others.map { theme in
                let themed = pictures.filter { $0.picture.theme == theme }
                return "<figure>\(image(themed, kind, theme: theme))<figcaption>\(escape(theme.rawValue))</figcaption></figure>"
            }.joined()
    }

    /// The light picture with the dark one as its source for a dark system theme.
    private func pair(_ pictures: [PictureRecord], _ kind: PictureKind) -> String {
        let light = pictures.first { $0.picture.theme == .light }
        let dark = pictures.first { $0.picture.theme == .dark }
        guard let light, light.status == .generated else { return placeholder(pictures.filter { Theme.shipped.contains($0.picture.theme) }) }
        var html = "<picture>"
        if let dark, dark.status == .generated {
            html += "<source srcset=\"\(escape(link(to: dark)))\" media=\"(prefers-color-scheme: dark)\">"
        }
        return html + "<img src=\"\(escape(link(to: light)))\" alt=\"\(kind.rawValue)\" width=\"512\" height=\"512\"></picture>"
    }

    /// One theme's picture, or what became of it.
    private func image(_ pictures: [PictureRecord], _ kind: PictureKind, theme: Theme) -> String {
        guard let generated = pictures.first(where: { $0.status == .generated }) else { return placeholder(pictures) }
        return "<img src=\"\(escape(link(to: generated)))\" alt=\"\(kind.rawValue), \(escape(theme.rawValue))\" width=\"512\" height=\"512\">"
    }

    private func placeholder(_ pictures: [PictureRecord]) -> String {
        let failed = pictures.first { $0.status == .failedNoRetry }
        let text = failed.map { "No picture: \($0.reason ?? "failed")" } ?? (pictures.isEmpty ? "No picture queued" : "Picture pending")
        return "<div class=\"placeholder\">\(escape(text))</div>"
    }

    /// The picture's path relative to the page, so the page and cache can move together.
    private func link(to picture: PictureRecord) -> String {
        let target = URL(fileURLWithPath: cacheDirectory).appendingPathComponent(picture.relativePath).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: pageFile).deletingLastPathComponent().standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, base.count) && target[common] == base[common] { common += 1 }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
