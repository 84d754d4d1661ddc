public import ArgumentParser
import Foundation
public import WorkFeedModel

// The closed choices workctl's options take, parsed by swift-argument-parser: a value that is not
// one is refused before a command runs, with the option's name and the choices (issue 41), and
// nothing after parsing unwraps a name by hand.

/// `--kind route`: a picture kind's name (``PictureKind``, whose cases are the choices).
extension PictureKind: ExpressibleByArgument {}

/// `--activity cycling`: an activity's name (``ActivityType``).
extension ActivityType: ExpressibleByArgument {}

/// `--units imperial`: a unit system's name (``UnitSystem``).
extension UnitSystem: ExpressibleByArgument {}

/// `--theme dark`: a theme's name, well formed (``Theme/rule``); which themes exist is the
/// coordinator's configuration, which refuses one it does not draw.
extension Theme: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
}

/// A comma-separated list of values of one option: `--kind route,heatmap`, `--theme light,dark`.
/// Every part must be a value (an empty part is not): `route,,heatmap` is refused whole.
struct CommaList<Element: ExpressibleByArgument>: ExpressibleByArgument {
    var values: [Element]

    init(_ values: [Element]) { self.values = values }

    init?(argument: String) {
        var values: [Element] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Element(argument: part.trimmingCharacters(in: .whitespaces)) else { return nil }
            values.append(value)
        }
        self.values = values
    }

    static var allValueStrings: [String] { Element.allValueStrings }

    var defaultValueDescription: String { values.map(\.defaultValueDescription).joined(separator: ",") }
}

extension CommaList: Sendable where Element: Sendable {}
