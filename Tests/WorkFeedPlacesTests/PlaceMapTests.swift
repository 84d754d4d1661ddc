import Foundation
import Testing
import WorkFeedPlaces

/// A position and the place a person who knows it would name (each checked on a map by its
/// coordinates, not against what the code answers).
struct KnownPlace: CustomTestStringConvertible, Sendable {
    var latitude: Double
    var longitude: Double
    var label: String
    var why: String
    var testDescription: String { "\(latitude), \(longitude): \(label)" }
}

@Suite struct PlaceMapTests {
    static let known = [
        // The start of the Zeeland walks in Tests/Data/tracks-in-map/zeeland: the boulevard of
        // Cadzand-Bad, a village of the municipality of Sluis, Zeeland. Cadzand itself (about 800
        // people) is not among GeoNames' places of 500 or more; Sluis is the nearest that is.
        KnownPlace(latitude: 51.375554, longitude: 3.389536, label: "Sluis, Zeeland", why: "Cadzand-Bad, municipality of Sluis"),
        // Breskens' ferry harbour, where the Zeeland rides go.
        KnownPlace(latitude: 51.3983, longitude: 3.5550, label: "Breskens, Zeeland", why: "Breskens harbour"),
        // Heidelberg's old town (the Heiliggeistkirche), and Heidelberg-Emmertsgrund, the city's
        // district on the Königstuhl's southern slope: nearer the village of Gaiberg's centre
        // (2.2 km) than Heidelberg's (4.2 km), but inside the city.
        KnownPlace(latitude: 49.4122, longitude: 8.7100, label: "Heidelberg, Baden-Württemberg", why: "Heidelberg old town"),
        KnownPlace(latitude: 49.3785, longitude: 8.7283, label: "Heidelberg, Baden-Württemberg", why: "Heidelberg-Emmertsgrund"),
        // Eppelheim's town hall, a town of its own beside Heidelberg: its own name, not the city's.
        KnownPlace(latitude: 49.4020, longitude: 8.6330, label: "Eppelheim, Baden-Württemberg", why: "Eppelheim, beside Heidelberg"),
        KnownPlace(latitude: 48.8530, longitude: 2.3499, label: "Paris, Île-de-France", why: "Notre-Dame de Paris"),
        // GeoNames' admin1 of Vaduz is Vaduz, and Berlin's is the State of Berlin: the name alone.
        KnownPlace(latitude: 47.1410, longitude: 9.5209, label: "Vaduz", why: "Vaduz, Liechtenstein"),
        KnownPlace(latitude: 52.5219, longitude: 13.4132, label: "Berlin", why: "Alexanderplatz"),
        // Monaco's quarters are places of their own in GeoNames: the casino is in Monte-Carlo.
        KnownPlace(latitude: 43.7396, longitude: 7.4276, label: "Monte-Carlo, Municipality of Monaco", why: "Monte Carlo casino"),
    ]

    @Test(arguments: known) func namesTheStartAsAPersonWould(_ known: KnownPlace) throws {
        let map = try PlaceMap.shipped.get()
        #expect(map.place(latitude: known.latitude, longitude: known.longitude)?.label == known.label, "\(known.why)")
    }

    @Test(arguments: [(54.5, 3.0), (30.0, -40.0), (-60.0, -120.0), (90.0, 0.0)])
    func farFromEveryPlaceThereIsNoName(latitude: Double, longitude: Double) throws {
        // The middle of the North Sea, of the Atlantic and of the Southern Ocean; the North Pole.
        #expect(try PlaceMap.shipped.get().place(latitude: latitude, longitude: longitude) == nil)
    }

    @Test func aPositionNotOnEarthHasNoPlace() throws {
        let map = try PlaceMap.shipped.get()
        #expect(map.place(latitude: .nan, longitude: 3) == nil)
        #expect(map.place(latitude: 91, longitude: 3) == nil)
        #expect(map.place(latitude: 51, longitude: .infinity) == nil)
    }

    @Test func theShippedFileSaysWhereItComesFrom() throws {
        let map = try PlaceMap.shipped.get()
        #expect(map.source.hasPrefix("GeoNames cities500 (CC BY 4.0)"))
        #expect(map.count > 200_000)
    }

    /// A lookup reads the grid's cells near the position, not the 234,908 places: measured, with a
    /// bound far above the figure (docs/places.md gives it) so that only a linear scan fails it.
    @Test func aLookupIsQuick() throws {
        let map = try PlaceMap.shipped.get()
        var generator = SystemRandomNumberGenerator()
        let positions = (0..<20_000).map { _ in (Double.random(in: 35...60, using: &generator), Double.random(in: -10...30, using: &generator)) }
        let clock = ContinuousClock()
        var found = 0
        let elapsed = clock.measure {
            for (latitude, longitude) in positions where map.place(latitude: latitude, longitude: longitude) != nil { found += 1 }
        }
        let microseconds =
            Double(elapsed.components.attoseconds) / 1e12 / Double(positions.count)
            + Double(elapsed.components.seconds) * 1e6 / Double(positions.count)
        print("PlaceMap lookup: \(microseconds) µs each over \(positions.count) positions in Europe, \(found) named")
        #expect(microseconds < 500)
        #expect(found > positions.count / 2)
    }

    // MARK: The rule, on a file made here

    /// A file of the given places (name, latitude, longitude, population, region), in the format of
    /// docs/places.md.
    static func file(_ places: [(String, Double, Double, Int, String?)], source: String = "test") -> [UInt8] {
        var bytes = Array("WFPL".utf8)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func text(_ value: String) {
            append(UInt8(value.utf8.count))
            bytes += value.utf8
        }
        let regions = Array(Set(places.compactMap(\.4))).sorted()
        append(UInt16(1))
        text(source)
        append(UInt32(regions.count))
        append(UInt32(places.count))
        regions.forEach(text)
        for (name, latitude, longitude, population, region) in places {
            append(Int32((latitude * 1e5).rounded()))
            append(Int32((longitude * 1e5).rounded()))
            append(UInt16((population + 99) / 100))
            append(region.flatMap { regions.firstIndex(of: $0) }.map(UInt16.init) ?? UInt16.max)
            text(name)
        }
        return bytes
    }

    @Test func insideACityItsNameWinsOverANearerVillage() throws {
        // A city of 200,000 (an extent of about 5.6 km) 4 km away, a village of 600 (about 300 m) 2 km away.
        let map = try PlaceMap(bytes: Self.file([("City", 50.036, 10.0, 200_000, "Region"), ("Village", 50.018, 10.0, 600, "Region")]))
        #expect(map.place(latitude: 50.0, longitude: 10.0)?.label == "City, Region")
        // Outside every extent, the nearest.
        let small = try PlaceMap(bytes: Self.file([("Town", 50.1, 10.0, 5_000, nil), ("Village", 50.05, 10.0, 600, "Region")]))
        #expect(small.place(latitude: 50.0, longitude: 10.0)?.label == "Village, Region")
        #expect(small.place(latitude: 50.0, longitude: 10.0)?.region == "Region")
        #expect(small.place(latitude: 50.3, longitude: 10.0)?.label == "Town")
    }

    @Test func theAntimeridianIsNoEdge() throws {
        let map = try PlaceMap(bytes: Self.file([("East", -16.8, 179.99, 1_000, nil), ("Far", -16.8, 179.5, 1_000, nil)]))
        #expect(map.place(latitude: -16.8, longitude: -179.99)?.name == "East")
        let west = try PlaceMap(bytes: Self.file([("West", -16.8, -179.99, 1_000, nil)]))
        #expect(west.place(latitude: -16.8, longitude: 179.95)?.name == "West")
    }

    @Test func theMaximumDistanceIsTheEdge() throws {
        let map = try PlaceMap(bytes: Self.file([("Harbour", 0.0, 0.0, 1_000, nil)]))
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        #expect(map.place(latitude: (PlaceMap.maximumDistance - 100) / metresPerDegree, longitude: 0)?.name == "Harbour")
        #expect(map.place(latitude: (PlaceMap.maximumDistance + 100) / metresPerDegree, longitude: 0) == nil)
    }

    @Test func aDamagedFileIsRefusedWithItsCode() throws {
        let good = Self.file([("A", 1, 1, 1_000, "R")])
        #expect(throws: PlaceMapError.self) { try PlaceMap(bytes: Array(good.dropLast())) }
        #expect((try? PlaceMap(bytes: Array(good.dropLast()))) == nil)
        do {
            _ = try PlaceMap(bytes: Array(good.dropLast()))
        } catch {
            #expect(error.code == .truncated)
        }
        var wrongMagic = good
        wrongMagic[0] = UInt8(ascii: "X")
        do {
            _ = try PlaceMap(bytes: wrongMagic)
            Issue.record("a file that is not a places file opened")
        } catch {
            #expect(error.code == .notAPlacesFile)
        }
        do {
            _ = try PlaceMap(bytes: good + [0])
            Issue.record("a file with bytes after its last place opened")
        } catch {
            #expect(error.code == .badLength)
        }
        // A huge count in the header is refused before anything is reserved for it.
        var huge = Self.file([])
        huge.replaceSubrange((huge.count - 4)..<huge.count, with: [0xFF, 0xFF, 0xFF, 0x7F])
        do {
            _ = try PlaceMap(bytes: huge)
            Issue.record("a count the file cannot hold was taken")
        } catch {
            #expect(error.code == .badHeader)
        }
    }
}
