import Foundation
import WorkFeedBytes

/// The name of the populated place nearest a position, from WorkFeed's shipped file of GeoNames'
/// cities500 (`places.wfpl`, made by `deploy/make-places.sh`; the format and the rules are in
/// docs/places.md).
///
/// ```swift
/// let map = try PlaceMap(bytes: bytes)
/// map.place(latitude: 49.4077, longitude: 8.6908)?.label   // "Heidelberg, Baden-Württemberg"
/// map.place(latitude: 54.5, longitude: 3.0)                // nil: the North Sea
/// ```
///
/// Which place: a position inside a place's estimated extent (a disc of ``extentRadius(population:)``)
/// gets the place it lies most centrally in, relative to that extent (so a start in a city's suburb
/// gets the city, and a start in a town beside it the town); otherwise the nearest place, if one is
/// within ``maximumDistance``; otherwise none. The places are kept in a grid of
/// ``cellDegrees``-degree cells, so a lookup reads the few cells within ``maximumDistance``, never
/// the whole list.
///
/// Every length and index of the file is checked when it is opened: a corrupt file is a
/// ``PlaceMapError`` from the initializer, never a trap nor a read outside the bytes.
public struct PlaceMap: Sendable {
    /// The data the file was made from, as written in it (`GeoNames cities500 (CC BY 4.0) from …`).
    public let source: String
    /// How many places the file holds.
    public var count: Int { latitudes.count }

    /// Beyond this many metres from every place, a position has no place (the open sea, an ice cap).
    public static let maximumDistance = 25_000.0
    /// People per square kilometre assumed over a place's extent (a town's built-up density).
    public static let extentDensity = 2_000.0
    /// The largest extent a place is given, in metres (a capital's built-up area, not its region).
    public static let maximumExtent = 15_000.0
    /// Degrees of latitude and longitude of one cell of the grid.
    public static let cellDegrees = 0.25

    static let magic: [UInt8] = Array("WFPL".utf8)
    /// The format version this reader reads.
    public static let formatVersion = 1
    static let noRegion = UInt16.max
    static let earthRadius = 6_371_008.8

    private let regions: [String]
    /// 1e-5 degrees, in the file's order.
    private let latitudes: [Int32]
    private let longitudes: [Int32]
    /// Extent radius in metres.
    private let extents: [Float]
    private let regionIndexes: [UInt16]
    private let nameBytes: [UInt8]
    /// Each place's name is `nameBytes[nameStarts[i]..<nameStarts[i + 1]]`.
    private let nameStarts: [UInt32]
    /// The grid: the places of cell `c` are `cellPlaces[cellStarts[c]..<cellStarts[c + 1]]`.
    private let cellStarts: [UInt32]
    private let cellPlaces: [UInt32]
    private static let columns = Int(360 / cellDegrees)
    private static let rows = Int(180 / cellDegrees)

    /// Opens a places file held in memory and checks all of it.
    /// - Throws: ``PlaceMapError`` naming what is wrong and at which byte offset.
    public init(bytes: [UInt8]) throws(PlaceMapError) {
        var reader = LittleEndianReader<PlaceMapError>(bytes)
        guard Array(try reader.take(4, "magic")) == Self.magic else {
            throw PlaceMapError(.notAPlacesFile, offset: 0, "the file does not start with WFPL")
        }
        let version = Int(try reader.integer(UInt16.self, "version"))
        guard version == Self.formatVersion else {
            throw PlaceMapError(.unsupportedVersion, offset: 4, "format version \(version); this reader reads \(Self.formatVersion)")
        }
        source = try reader.text(Int(try reader.integer(UInt8.self, "source length")), "source")
        let regionCount = Int(try reader.integer(UInt32.self, "admin1 name count"))
        let placeCountOffset = reader.offset
        let placeCount = Int(try reader.integer(UInt32.self, "place count"))
        // The smallest record is 14 bytes: a count the file cannot hold is refused before memory is reserved for it.
        guard regionCount < Int(Self.noRegion), regionCount <= reader.remaining, placeCount <= reader.remaining / 14 else {
            throw PlaceMapError(.badHeader, offset: placeCountOffset, "\(regionCount) admin1 names and \(placeCount) places do not fit in the file")
        }
        var regions: [String] = []
        regions.reserveCapacity(regionCount)
        for index in 0..<regionCount {
            regions.append(try reader.text(Int(try reader.integer(UInt8.self, "admin1 name \(index) length")), "admin1 name \(index)"))
        }
        var latitudes: [Int32] = []
        var longitudes: [Int32] = []
        var extents: [Float] = []
        var regionIndexes: [UInt16] = []
        var nameBytes: [UInt8] = []
        var nameStarts: [UInt32] = [0]
        latitudes.reserveCapacity(placeCount)
        longitudes.reserveCapacity(placeCount)
        extents.reserveCapacity(placeCount)
        regionIndexes.reserveCapacity(placeCount)
        nameStarts.reserveCapacity(placeCount + 1)
        for index in 0..<placeCount {
            let start = reader.offset
            // The fixed fields at once (latitude, longitude, population, admin1 name, name length):
            // a place is read with two checked reads, not six (the file holds 234,908).
            let fields = try reader.take(13, "place \(index)'s fields")
            let latitude = Int32(bitPattern: Self.uint32(fields, 0)), longitude = Int32(bitPattern: Self.uint32(fields, 4))
            let hundreds = Self.uint16(fields, 8), region = Self.uint16(fields, 10)
            let name = try reader.take(Int(fields[fields.startIndex + 12]), "place \(index) name")
            guard (-9_000_000...9_000_000).contains(latitude), (-18_000_000...18_000_000).contains(longitude),
                region == Self.noRegion || Int(region) < regionCount, !name.isEmpty, String(validating: name, as: UTF8.self) != nil
            else {
                throw PlaceMapError(.badPlace, offset: start, "place \(index): its position, admin1 name or name is not valid")
            }
            latitudes.append(latitude)
            longitudes.append(longitude)
            extents.append(Float(Self.extentRadius(population: Int(hundreds) * 100)))
            regionIndexes.append(region)
            nameBytes.append(contentsOf: name)
            nameStarts.append(UInt32(nameBytes.count))
        }
        guard reader.remaining == 0 else {
            throw PlaceMapError(.badLength, offset: reader.offset, "\(reader.remaining) bytes after the last place")
        }
        // The grid, by counting sort: each place's cell, then the places of each cell in the file's order.
        let cellCount = Self.columns * Self.rows
        var cells = [UInt32](repeating: 0, count: cellCount + 1)
        let cellOfPlace = (0..<placeCount).map { Self.cell(row: Self.row(latitudes[$0]), column: Self.column(longitudes[$0])) }
        for cell in cellOfPlace { cells[cell + 1] += 1 }
        for cell in 0..<cellCount { cells[cell + 1] += cells[cell] }
        var next = Array(cells[0..<cellCount])
        var placesByCell = [UInt32](repeating: 0, count: placeCount)
        for (place, cell) in cellOfPlace.enumerated() {
            placesByCell[Int(next[cell])] = UInt32(place)
            next[cell] += 1
        }
        self.regions = regions
        self.latitudes = latitudes
        self.longitudes = longitudes
        self.extents = extents
        self.regionIndexes = regionIndexes
        self.nameBytes = nameBytes
        self.nameStarts = nameStarts
        self.cellStarts = cells
        self.cellPlaces = placesByCell
    }

    /// The place a position lies in or nearest to (the rule above), or `nil` for a position
    /// farther than ``maximumDistance`` from every place or not on Earth (not finite, beyond the
    /// poles or ±180°).
    public func place(latitude: Double, longitude: Double) -> Place? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let cosine = max(cos(latitude * .pi / 180), 0.01)
        let metresPerDegree = Self.earthRadius * .pi / 180
        let rowSpan = Int((Self.maximumDistance / metresPerDegree / Self.cellDegrees).rounded(.up))
        let columnSpan = min(Int((Self.maximumDistance / (metresPerDegree * cosine) / Self.cellDegrees).rounded(.up)), Self.columns / 2)
        let centreRow = Self.row(Int32((latitude * 1e5).rounded()))
        let centreColumn = Self.column(Int32((longitude * 1e5).rounded()))
        var nearest: (index: Int, distance: Double)?
        var inside: (index: Int, depth: Double)?
        for row in max(0, centreRow - rowSpan)...min(Self.rows - 1, centreRow + rowSpan) {
            for step in -columnSpan...columnSpan {
                let column = (centreColumn + step + Self.columns) % Self.columns
                let cell = Self.cell(row: row, column: column)
                for slot in Int(cellStarts[cell])..<Int(cellStarts[cell + 1]) {
                    let index = Int(cellPlaces[slot])
                    let north = (Double(latitudes[index]) / 1e5 - latitude) * metresPerDegree
                    var east = Double(longitudes[index]) / 1e5 - longitude
                    if east > 180 { east -= 360 } else if east < -180 { east += 360 }
                    let distance = (north * north + east * metresPerDegree * cosine * east * metresPerDegree * cosine).squareRoot()
                    guard distance <= Self.maximumDistance else { continue }
                    // Ties go to the place earlier in the file, so that the answer never depends on the cells' order.
                    if nearest.map({ distance < $0.distance || distance == $0.distance && index < $0.index }) ?? true {
                        nearest = (index, distance)
                    }
                    let depth = distance / Double(extents[index])
                    if depth < 1, inside.map({ depth < $0.depth || depth == $0.depth && index < $0.index }) ?? true { inside = (index, depth) }
                }
            }
        }
        guard let chosen = inside?.index ?? nearest?.index else { return nil }
        return place(at: chosen)
    }

    /// The little-endian integers at `at` of a place's fixed fields, which were read checked.
    private static func uint16(_ fields: ArraySlice<UInt8>, _ at: Int) -> UInt16 {
        let base = fields.startIndex + at
        return UInt16(fields[base]) | UInt16(fields[base + 1]) << 8
    }

    private static func uint32(_ fields: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        UInt32(uint16(fields, at)) | UInt32(uint16(fields, at + 2)) << 16
    }

    /// The radius in metres of the disc a place of `population` people is taken to cover: the
    /// disc that holds them at ``extentDensity``, at most ``maximumExtent``.
    public static func extentRadius(population: Int) -> Double {
        min((Double(max(population, 0)) / (extentDensity * .pi)).squareRoot() * 1_000, maximumExtent)
    }

    private func place(at index: Int) -> Place {
        let name = String(decoding: nameBytes[Int(nameStarts[index])..<Int(nameStarts[index + 1])], as: UTF8.self)
        let region = regionIndexes[index] == Self.noRegion ? nil : regions[Int(regionIndexes[index])]
        return Place(name: name, region: region, latitude: Double(latitudes[index]) / 1e5, longitude: Double(longitudes[index]) / 1e5)
    }

    private static func row(_ latitude: Int32) -> Int {
        min(max(Int((Double(latitude) / 1e5 + 90) / cellDegrees), 0), rows - 1)
    }

    private static func column(_ longitude: Int32) -> Int {
        min(max(Int((Double(longitude) / 1e5 + 180) / cellDegrees), 0), columns - 1)
    }

    private static func cell(row: Int, column: Int) -> Int { row * columns + column }
}

/// A populated place as a workout's start is named by it.
public struct Place: Sendable, Hashable {
    /// The place's name in GeoNames (`Cadzand`, `Heidelberg`), in UTF-8.
    public var name: String
    /// Its first-level division (`Zeeland`, `Baden-Württemberg`), or `nil` where GeoNames has none
    /// or it only repeats the place (`Berlin`, `Monaco`).
    public var region: String?
    /// Where GeoNames puts the place, in degrees.
    public var latitude: Double
    public var longitude: Double

    public init(name: String, region: String?, latitude: Double, longitude: Double) {
        self.name = name
        self.region = region
        self.latitude = latitude
        self.longitude = longitude
    }

    /// What the feed, `workctl show` and a picture without a map say: `Cadzand, Zeeland`, or the
    /// name alone when there is no region.
    public var label: String { region.map { "\(name), \($0)" } ?? name }
}
