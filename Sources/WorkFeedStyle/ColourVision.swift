/// How a colour looks to a reader with a colour-vision deficiency, for the heatmap's rule that
/// its zones stay apart to every reader (docs/rendering.md, "Heatmap colours").
///
/// The simulation is Machado, Oliveira and Fernandes's (IEEE TVCG 15(6), 2009) at full severity:
/// one 3 × 3 matrix a deficiency, applied to linear-light sRGB, each channel then clamped to 0…1.
/// Full severity is the dichromat, the hardest case: about 1 % of men lack the long-wavelength
/// cones (protanopia), about 1 % the medium (deuteranopia, with the milder anomalous forms about 6 %
/// of men all told), and tritanopia is rare (about 1 in 10,000).
public enum ColourVision: String, Sendable, CaseIterable, CustomStringConvertible {
    case protanopia
    case deuteranopia
    case tritanopia

    public var description: String { rawValue }

    /// Machado et al.'s matrix for severity 1.0, rows red, green, blue (their Table 1, also used
    /// by colorspacious and Chromium's DevTools).
    var matrix: [[Double]] {
        switch self {
        case .protanopia:
            [[0.152_286, 1.052_583, -0.204_868], [0.114_503, 0.786_281, 0.099_216], [-0.003_882, -0.048_116, 1.051_998]]
        case .deuteranopia:
            [[0.367_322, 0.860_646, -0.227_968], [0.280_085, 0.672_501, 0.047_413], [-0.011_820, 0.042_940, 0.968_881]]
        case .tritanopia:
            [[1.255_528, -0.076_749, -0.178_779], [-0.078_411, 0.930_809, 0.147_602], [0.004_733, 0.691_367, 0.303_900]]
        }
    }
}

extension RGBA {
    /// The CIE L*a*b* of this opaque colour as a reader with `vision` sees it.
    public func lab(seenWith vision: ColourVision) -> (l: Double, a: Double, b: Double) {
        let (r, g, b) = linear
        let seen = vision.matrix.map { row in min(1, max(0, row[0] * r + row[1] * g + row[2] * b)) }
        return Self.lab(linear: (seen[0], seen[1], seen[2]))
    }

    /// CIEDE2000 between this colour and `other` as a reader with `vision` sees both.
    public func deltaE2000(to other: RGBA, seenWith vision: ColourVision) -> Double {
        Self.deltaE2000(lab(seenWith: vision), other.lab(seenWith: vision))
    }
}
