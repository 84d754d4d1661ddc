import Foundation
import WorkFeedModel
import WorkFeedStyle

/// A share card's text and charts laid out below its map (docs/rendering.md, "Share cards"), all
/// in pixels: the title, the local date, the figures in rows of up to three (a value over its
/// label), the time in each heart-rate zone as one bar, and the elevation profile at the bottom.
struct ShareCardLayout {
    var margin: Int
    var title: TextLayout
    var date: TextLayout?
    var place: TextLayout?
    var figures: [(value: TextLayout, label: TextLayout)]
    var columns: Int
    var valueHeight: Int
    var labelHeight: Int
    var zones: (title: TextLayout, shares: [(colour: RGBA, seconds: Double)])?
    var profile: [Double]?
    /// Pixels the part below the map takes, from its top.
    var height: Int
    var gap: Int
    var barHeight: Int
    var profileHeight: Int
}

extension Renderer {
    /// Text sizes in points: the title, the figures' values, their labels and the date.
    static let cardTitleSize = 22.0
    static let cardValueSize = 19.0
    static let cardLabelSize = 10.0
    static let cardDateSize = 11.0
    /// The smallest the title shrinks to before it is cut with an ellipsis.
    static let cardTitleMinimumSize = 14.0
    /// The elevation profile's height in points; the map takes what is left, at least ``cardMinimumMapHeight``.
    static let cardProfileHeight = 44.0
    static let cardMinimumMapHeight = 150.0

    /// Draws a share card: a `mapKind` picture (map, names, marks, attribution; the kind is given by
    /// `render`'s switch, the one place of the renderer that names kinds) over the card's top,
    /// then its words and charts below it on the theme's background. A route that cannot be drawn
    /// (none, or a single place) leaves the map out: the card is its words and charts alone.
    func drawShareCard(
        spec: PictureSpec, mapKind: PictureKind, route: Route, heartRate: [HeartRateSample], statistics: inout RenderStatistics
    ) throws(RenderFailure) {
        guard let card = spec.card else { throw .missingCardText }
        guard let fonts = mapFonts(), let font = fonts.main else { throw .noFont }
        let scale = spec.scale
        let zones = spec.heatmap.flatMap(HeartRateZones.init(style:))
        var layout = layOutCard(card, spec: spec, route: route, heartRate: heartRate, zones: zones, fonts: fonts, font: font)

        let mapHeight = spec.pixelHeight - layout.height
        var map: [UInt8]?
        var mapSpec = spec
        mapSpec.kind = mapKind
        mapSpec.height = mapHeight / scale
        mapSpec.card = nil
        // The card says where it started in its words (the workout's place): a map part without a
        // map gets its scale bar alone.
        captionRoute = nil
        do {
            try drawRoute(spec: mapSpec, route: route, statistics: &statistics)
            if let style = mapSpec.map, let attribution { drawAttribution(attribution, style: style) }
            // Without a map, the map's part says where it is (the start's place, a scale bar).
            if let caption { drawCaption(caption, style: mapSpec.style, scale: scale) }
            map = Array(canvas.bytes)
        } catch let failure where Self.leavesMapOut(failure) {
            map = nil
        }
        attribution = nil
        caption = nil

        canvas.prepare(width: spec.pixelWidth, height: spec.pixelHeight, background: backdrop(spec))
        var top = 0
        if let map {
            let rowBytes = spec.pixelWidth * 3
            for y in 0..<(mapSpec.height * scale) {
                let base = y * rowBytes
                map.withUnsafeBufferPointer { source in
                    canvas.row(y).update(from: source.baseAddress! + base, count: rowBytes)
                }
            }
            top = mapSpec.height * scale
        } else {
            // No map: the words and charts in the middle of the card.
            top = max(0, (spec.pixelHeight - layout.height) / 2)
            layout.profileHeight = layout.profile == nil ? 0 : layout.profileHeight
        }
        drawCardText(layout, spec: spec, top: top)
    }

    /// Whether a route failure leaves the card without its map rather than failing it: the route
    /// has nothing to draw. Style and map failures still fail the card, as they fail a route.
    static func leavesMapOut(_ failure: RenderFailure) -> Bool {
        [.noRoute, .everyPointInvalid, .tooFewPoints, .singlePlace].contains(failure.code)
    }

    /// The ink of the card's words and the quieter ink of its labels, for the theme's background;
    /// on a see-through one, white and nearly white over a soft dark halo, which read on a photo
    /// whatever its colours.
    static func cardInks(style: RouteStyle) -> (ink: RGBA, muted: RGBA, halo: RGBA?) {
        if style.isSeeThrough {
            return (RGBA(red: 0xff, green: 0xff, blue: 0xff), RGBA(red: 0xff, green: 0xff, blue: 0xff, alpha: 0xd8), RGBA(hex: "#00000070"))
        }
        let background = style.background
        let light = Int(background.red) * 3 + Int(background.green) * 6 + Int(background.blue) > 128 * 10
        return light
            ? (RGBA(red: 0x1f, green: 0x23, blue: 0x28), RGBA(red: 0x57, green: 0x60, blue: 0x6a), nil)
            : (RGBA(red: 0xe6, green: 0xed, blue: 0xf3), RGBA(red: 0x9d, green: 0xa7, blue: 0xb3), nil)
    }

    func layOutCard(
        _ card: ShareCardText, spec: PictureSpec, route: Route, heartRate: [HeartRateSample], zones: HeartRateZones?, fonts: FontSet,
        font: FontFace
    ) -> ShareCardLayout {
        let scale = Double(spec.scale)
        func pixels(_ points: Double) -> Int { max(Int((points * scale).rounded()), 1) }
        let margin = pixels(16)
        let gap = pixels(10)
        let inner = spec.pixelWidth - 2 * margin

        let title = fitted(
            card.title, fonts: fonts, fallback: font, size: pixels(Self.cardTitleSize), least: pixels(Self.cardTitleMinimumSize), width: inner)
        let date = card.date.map { fitted($0, fonts: fonts, fallback: font, size: pixels(Self.cardDateSize), least: pixels(8), width: inner) }
        let place = card.place.map { fitted($0, fonts: fonts, fallback: font, size: pixels(Self.cardDateSize), least: pixels(8), width: inner) }
        let columns = card.figures.count == 4 ? 2 : 3
        let columnWidth = (inner - (columns - 1) * gap) / columns
        let figures = card.figures.map { figure in
            (
                value: fitted(figure.value, fonts: fonts, fallback: font, size: pixels(Self.cardValueSize), least: pixels(10), width: columnWidth),
                label: fitted(figure.label, fonts: fonts, fallback: font, size: pixels(Self.cardLabelSize), least: pixels(7), width: columnWidth)
            )
        }
        let valueHeight = figures.map(\.value.metrics.height).max() ?? 0
        let labelHeight = figures.map(\.label.metrics.height).max() ?? 0

        var zoneBar: (title: TextLayout, shares: [(colour: RGBA, seconds: Double)])?
        if let zones, let seconds = Self.secondsInZones(heartRate, zones: zones, route: route) {
            let title = font.layout("Time in heart-rate zones", pixelSize: pixels(Self.cardLabelSize))
            zoneBar = (title, zip(zones.colours, seconds).map { (colour: $0, seconds: $1) })
        }
        let profile = Self.elevationProfile(route, columns: inner)

        let barHeight = pixels(8)
        let profileHeight = profile == nil ? 0 : pixels(Self.cardProfileHeight)
        var height = margin + title.metrics.height
        if let date { height += pixels(2) + date.metrics.height }
        if let place { height += (date == nil ? pixels(2) : 0) + place.metrics.height }
        let rows = (figures.count + columns - 1) / columns
        if rows > 0 { height += gap + rows * (valueHeight + labelHeight) + (rows - 1) * gap }
        if let zoneBar { height += gap + zoneBar.title.metrics.height + pixels(3) + barHeight }
        if profile != nil { height += gap + profileHeight }
        height += margin
        // The map keeps at least its least height; the charts give way first (a card with every
        // part at once still fits: checked for every size, theme and unit in ShareCardTests).
        let most = spec.pixelHeight - pixels(Self.cardMinimumMapHeight)
        var layout = ShareCardLayout(
            margin: margin, title: title, date: date, place: place, figures: figures, columns: columns, valueHeight: valueHeight,
            labelHeight: labelHeight,
            zones: zoneBar, profile: profile, height: height, gap: gap, barHeight: barHeight, profileHeight: profileHeight)
        if layout.height > most, layout.profile != nil {
            layout.height -= gap + profileHeight
            layout.profile = nil
            layout.profileHeight = 0
        }
        if layout.height > most, let zones = layout.zones {
            layout.height -= gap + zones.title.metrics.height + pixels(3) + barHeight
            layout.zones = nil
        }
        return layout
    }

    /// `text` laid out at `size` pixels, or smaller down to `least` until it fits `width`; still
    /// too wide, cut at a word or letter with an ellipsis, so that it never leaves its box.
    func fitted(_ text: String, fonts: FontSet, fallback: FontFace, size: Int, least: Int, width: Int) -> TextLayout {
        let font = fonts.font(for: text) ?? fallback
        var pixelSize = size
        while pixelSize > least, font.measure(text, pixelSize: pixelSize).width > width {
            pixelSize = max(least, pixelSize * 9 / 10)
        }
        var shown = text
        var layout = font.layout(shown, pixelSize: pixelSize)
        while layout.metrics.width > width, shown.count > 1 {
            shown = String(shown.dropLast(2)).trimmingCharacters(in: .whitespaces) + "…"
            layout = font.layout(shown, pixelSize: pixelSize)
        }
        return layout
    }

    /// Seconds spent in each zone, from each sample to the next inside the route's time span, a
    /// gap of more than ``maximumSampleGap`` counting as a pause; `nil` without a second in any.
    static func secondsInZones(_ samples: [HeartRateSample], zones: HeartRateZones, route: Route) -> [Double]? {
        let times = route.points.compactMap(\.time)
        guard let first = times.min(), let last = times.max() else { return nil }
        let inside = samples.filter { $0.bpm.isFinite && $0.bpm > 0 && $0.time >= first && $0.time <= last }.sorted { $0.time < $1.time }
        var seconds = [Double](repeating: 0, count: zones.colours.count)
        for (sample, next) in zip(inside, inside.dropFirst()) {
            let step = next.time.timeIntervalSince(sample.time)
            guard step > 0, step <= maximumSampleGap else { continue }
            seconds[zones.zone(for: sample.bpm)] += step
        }
        return seconds.reduce(0, +) > 0 ? seconds : nil
    }

    /// The longest gap between heart-rate samples that counts as time in a zone, in seconds.
    static let maximumSampleGap = 30.0

    /// The route's altitude along its length, one value a column of `columns` (the highest point
    /// in each column's stretch of ground); `nil` without two altitudes a metre of ground apart.
    static func elevationProfile(_ route: Route, columns: Int) -> [Double]? {
        var along: [(metres: Double, altitude: Double)] = []
        var metres = 0.0
        var previous: RoutePoint?
        for point in route.points where point.latitude.isFinite && point.longitude.isFinite && abs(point.latitude) <= 90 {
            if let previous { metres += WorkoutSummary.haversine(previous, point) }
            previous = point
            if let altitude = point.elevation, altitude.isFinite, abs(altitude) < 10_000 { along.append((metres, altitude)) }
        }
        guard columns > 1, along.count >= 2, let length = along.last?.metres, length >= 1 else { return nil }
        var profile = [Double](repeating: -.infinity, count: columns)
        for sample in along {
            let column = min(columns - 1, Int(sample.metres / length * Double(columns)))
            profile[column] = max(profile[column], sample.altitude)
        }
        // Columns no point fell in take the one before them (the first takes the first altitude).
        var last = along[0].altitude
        for index in profile.indices {
            if profile[index] == -.infinity { profile[index] = last } else { last = profile[index] }
        }
        // Averaged over a hundredth of the width on either side: a barometer's whole metres and a
        // GPS's noise are steps a profile should not show.
        let reach = max(1, columns / 100)
        var sums = [0.0]
        sums.reserveCapacity(columns + 1)
        for value in profile { sums.append(sums[sums.count - 1] + value) }
        return profile.indices.map { index in
            let (low, high) = (max(0, index - reach), min(columns, index + reach + 1))
            return (sums[high] - sums[low]) / Double(high - low)
        }
    }

    func drawCardText(_ layout: ShareCardLayout, spec: PictureSpec, top start: Int) {
        let (ink, muted, halo) = Self.cardInks(style: spec.style)
        let scale = spec.scale
        let left = layout.margin
        let inner = spec.pixelWidth - 2 * layout.margin
        func draw(_ text: TextLayout, _ x: Int, _ y: Int, _ colour: RGBA) {
            canvas.draw(text, left: x, top: y, paint: Paint(colour), halo: halo.map { Paint($0) }, haloRadius: scale)
            cardBoxes.append(LabelBox(minX: Float(x), minY: Float(y), maxX: Float(x + text.metrics.width), maxY: Float(y + text.metrics.height)))
        }
        var top = start + layout.margin
        draw(layout.title, left, top, ink)
        top += layout.title.metrics.height
        if let date = layout.date {
            top += 2 * scale
            draw(date, left, top, muted)
            top += date.metrics.height
        }
        if let place = layout.place {
            if layout.date == nil { top += 2 * scale }
            draw(place, left, top, muted)
            top += place.metrics.height
        }
        let columnWidth = (inner - (layout.columns - 1) * layout.gap) / layout.columns
        for (index, figure) in layout.figures.enumerated() {
            let (row, column) = (index / layout.columns, index % layout.columns)
            if column == 0 { top += layout.gap + (row > 0 ? layout.valueHeight + layout.labelHeight : 0) }
            let x = left + column * (columnWidth + layout.gap)
            draw(figure.value, x, top, ink)
            draw(figure.label, x, top + layout.valueHeight, muted)
        }
        if !layout.figures.isEmpty { top += layout.valueHeight + layout.labelHeight }
        if let zones = layout.zones {
            top += layout.gap
            draw(zones.title, left, top, muted)
            top += zones.title.metrics.height + 3 * scale
            let total = zones.shares.reduce(0) { $0 + $1.seconds }
            var x = Float(left)
            for share in zones.shares where share.seconds > 0 {
                let width = Float(inner) * Float(share.seconds / total)
                var opaque = share.colour
                opaque.alpha = 0xff
                fill(minX: x, minY: Float(top), maxX: x + width, maxY: Float(top + layout.barHeight), opaque)
                x += width
            }
            cardBoxes.append(LabelBox(minX: Float(left), minY: Float(top), maxX: Float(left + inner), maxY: Float(top + layout.barHeight)))
            top += layout.barHeight
        }
        if let profile = layout.profile {
            top += layout.gap
            drawProfile(profile, spec: spec, left: left, top: top, height: layout.profileHeight)
            cardBoxes.append(
                LabelBox(minX: Float(left), minY: Float(top), maxX: Float(left + profile.count), maxY: Float(top + layout.profileHeight)))
        }
    }

    /// The elevation profile as a filled area in the route line's colour, lowest altitude at its
    /// foot; a flat route (less than 10 m between lowest and highest) is drawn as a low band.
    func drawProfile(_ profile: [Double], spec: PictureSpec, left: Int, top: Int, height: Int) {
        guard let low = profile.min(), let high = profile.max() else { return }
        let range = max(high - low, 10)
        let foot = Float(top + height)
        var ring: [SIMD2<Float>] = [SIMD2(Float(left), foot)]
        for (column, altitude) in profile.enumerated() {
            let y = foot - Float((altitude - low) / range) * Float(height) * 0.9 - Float(height) * 0.1
            ring.append(SIMD2(Float(left + column), y))
            ring.append(SIMD2(Float(left + column + 1), y))
        }
        ring.append(SIMD2(Float(left + profile.count), foot))
        var colour = spec.style.line
        colour.alpha = 0xb0
        area.prepare(width: canvas.width, height: canvas.height)
        area.addRing(ring[...])
        area.paint(onto: canvas, Paint(colour))
    }
}
