/// The file formats ``WorkoutFileReader`` tells apart.
enum WorkoutFormat: Sendable, Hashable {
    case gpx
    case tcx
    case fit
    /// An Apple Health `export.xml`; recognized so that the error says what it is.
    case appleHealth
    /// A zip archive (an Apple Health `export.zip`, a folder of GPX files); recognized so that the
    /// error says what it is.
    case zip

    /// Recognizes a format by its first bytes: the FIT signature, the zip signature, or the
    /// root element of an XML document. `nil` when the content says nothing.
    static func sniff(_ bytes: [UInt8]) -> WorkoutFormat? {
        if FITFileHeader.hasSignature(bytes) { return .fit }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .zip }
        var reader = XMLPullReader(bytes: bytes, file: "")
        while true {
            guard let event = try? reader.next() else { return nil }
            switch event {
            case .startElement:
                switch reader.name.local {
                case "gpx": return .gpx
                case "TrainingCenterDatabase": return .tcx
                case "HealthData": return .appleHealth
                default: return nil
                }
            case .endDocument:
                return nil
            default:
                continue
            }
        }
    }

    /// The name ``WorkoutFile/format`` records: `gpx`, `tcx`, `fit`, `apple-health`, `zip`.
    var name: String {
        switch self {
        case .gpx: "gpx"
        case .tcx: "tcx"
        case .fit: "fit"
        case .appleHealth: "apple-health"
        case .zip: "zip"
        }
    }

    /// The format a file name's extension suggests, for content that could not be recognized.
    init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "gpx": self = .gpx
        case "tcx": self = .tcx
        case "fit": self = .fit
        case "zip": self = .zip
        default: return nil
        }
    }
}
