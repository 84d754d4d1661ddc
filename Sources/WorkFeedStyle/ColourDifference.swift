import Foundation

/// How far apart two colours look: the measures the heatmap's zone colours are checked by against
/// a theme's map, line and marks (docs/rendering.md, "Heatmap colours").
///
/// Both treat colours as opaque sRGB (alpha is ignored): flatten a translucent colour over what
/// it is drawn on first.
extension RGBA {
    /// WCAG 2's relative luminance, 0 (black) to 1 (white), of the sRGB colour.
    public var relativeLuminance: Double {
        let (r, g, b) = linear
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    /// WCAG 2's contrast ratio, 1 (the same luminance) to 21 (black on white): lightness only,
    /// blind to hue (a green on a green of the same lightness is 1:1, and so is red on green).
    public func contrastRatio(to other: RGBA) -> Double {
        let a = relativeLuminance
        let b = other.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// CIE L*a*b* under D65: L from 0 (black) to 100 (white), a from green to red, b from blue to yellow.
    public var lab: (l: Double, a: Double, b: Double) { Self.lab(linear: linear) }

    /// CIE L*a*b* of linear-light red, green and blue (0 to 1).
    static func lab(linear: (Double, Double, Double)) -> (l: Double, a: Double, b: Double) {
        let (r, g, b) = linear
        // IEC 61966-2-1's sRGB to XYZ matrix, to D65 white (0.950 47, 1, 1.088 83).
        let x = (0.412_456_4 * r + 0.357_576_1 * g + 0.180_437_5 * b) / 0.950_47
        let y = 0.212_672_9 * r + 0.715_152_2 * g + 0.072_175_0 * b
        let z = (0.019_333_9 * r + 0.119_192_0 * g + 0.950_304_1 * b) / 1.088_83
        func f(_ t: Double) -> Double { t > 216 / 24389 ? cbrt(t) : (24389 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// The CIE L*a*b* hue angle in degrees, 0..<360 (red near 30, yellow near 90, green near 140,
    /// blue near 280, purple near 310).
    public var labHue: Double {
        let (_, a, b) = lab
        let degrees = atan2(b, a) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// CIEDE2000 colour difference: about 1 is the least difference an eye sees side by side, 2 to
    /// 10 one seen at a glance, above 20 two colours no one takes for shades of each other. Unlike
    /// the contrast ratio it counts hue and chroma too.
    public func deltaE2000(to other: RGBA) -> Double { Self.deltaE2000(lab, other.lab) }

    /// CIEDE2000 between two CIE L*a*b* colours (Sharma, Wu and Dalal's formulation, 2005).
    public static func deltaE2000(_ first: (l: Double, a: Double, b: Double), _ second: (l: Double, a: Double, b: Double)) -> Double {
        let (l1, a1, b1) = first
        let (l2, a2, b2) = second
        let meanC = (hypot(a1, b1) + hypot(a2, b2)) / 2
        let g = 0.5 * (1 - (pow(meanC, 7) / (pow(meanC, 7) + pow(25, 7))).squareRoot())
        let (a1p, a2p) = ((1 + g) * a1, (1 + g) * a2)
        let (c1p, c2p) = (hypot(a1p, b1), hypot(a2p, b2))
        func hue(_ b: Double, _ a: Double) -> Double {
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p))
        var dh = 0.0
        if c1p * c2p != 0 {
            dh = h2p - h1p
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dL = l2 - l1
        let dC = c2p - c1p
        let dH = 2 * (c1p * c2p).squareRoot() * sin(dh / 2 * .pi / 180)
        let meanL = (l1 + l2) / 2
        let meanCp = (c1p + c2p) / 2
        var meanH = h1p + h2p
        if c1p * c2p != 0 {
            if abs(h1p - h2p) <= 180 {
                meanH = (h1p + h2p) / 2
            } else {
                meanH = (h1p + h2p + (h1p + h2p < 360 ? 360 : -360)) / 2
            }
        }
        func cosine(_ degrees: Double) -> Double { cos(degrees * .pi / 180) }
        let t =
            1 - 0.17 * cosine(meanH - 30) + 0.24 * cosine(2 * meanH) + 0.32 * cosine(3 * meanH + 6) - 0.20 * cosine(4 * meanH - 63)
        let dTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let rc = 2 * (pow(meanCp, 7) / (pow(meanCp, 7) + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(meanL - 50, 2) / (20 + pow(meanL - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(2 * dTheta * .pi / 180) * rc
        let (lTerm, cTerm, hTerm) = (dL / sl, dC / sc, dH / sh)
        return (lTerm * lTerm + cTerm * cTerm + hTerm * hTerm + rt * cTerm * hTerm).squareRoot()
    }

    /// The linear-light red, green and blue, 0 to 1.
    var linear: (Double, Double, Double) {
        func channel(_ byte: UInt8) -> Double {
            let c = Double(byte) / 255
            return c <= 0.040_45 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return (channel(red), channel(green), channel(blue))
    }
}
