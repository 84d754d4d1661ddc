import Foundation
import WorkFeedModel
import WorkFeedWire

/// The feed as a web page: what the app's list would show. Each workout's route picture, and its
/// heatmap when one was asked for, follows the viewer's system theme (light or dark); a picture
/// that failed shows its reason instead.
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
                  <div class="facts"><time>\(escape(date))</time><span>\(escape(facts.joined(separator: " · ")))</span>\(w.name.map { "<span class=\"name\">\(escape($0))</span>" } ?? "")</div>
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

    private func picture(for item: WorkoutWithPictures, kind: PictureKind) -> String {
        let routes = item.pictures.filter { $0.picture.kind == kind && $0.picture.scale == 1 }
        let light = routes.first { $0.picture.theme == .light }
        let dark = routes.first { $0.picture.theme == .dark }
        if let light, light.status == .generated {
            var html = "<picture>"
            if let dark, dark.status == .generated {
                html += "<source srcset=\"\(escape(link(to: dark)))\" media=\"(prefers-color-scheme: dark)\">"
            }
            return html + "<img src=\"\(escape(link(to: light)))\" alt=\"\(kind.rawValue)\" width=\"512\" height=\"512\"></picture>"
        }
        let failed = routes.first { $0.status == .failedNoRetry }
        let text = failed.map { "No picture: \($0.reason ?? "failed")" } ?? (routes.isEmpty ? "No picture queued" : "Picture pending")
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
