import WorkFeedTiles

/// Command-line options of workfeed-bench; see docs/benchmarks.md.
struct BenchOptions {
    /// Benchmark groups to run; each group is one function (render, png, ...).
    var groups: [String] = ["render", "png"]
    var runs = 31
    var sizes = [1_000, 10_000, 100_000]
    var kinds = ["route", "heatmap"]
    var scales = [1, 2]
    /// The "map" group: the themes drawn (light and dark have maps of their own palettes).
    var themes = ["light"]
    /// The "map" group: when set, each picture's PNG is written here as
    /// `<area>_<kind>_<theme>@<scale>x.png`, to compare builds' pictures.
    var mapOut: String?
    /// When set, write the synthetic route of this many points as CSV to stdout and stop.
    var dumpRoutePoints: Int?
    /// When set, write sample pictures into this directory and stop.
    var samplesDirectory: String?
    /// The "import" group: the size of the generated Apple Health export.xml, in MB.
    var importMegabytes = 1024
    /// The "import" group: where the inputs are generated (a temporary folder inside it, removed after).
    var importDirectory: String?
    /// When set, write an index of ``workouts`` made-up workouts of ``owner`` at this path and stop
    /// (the gateway benchmark's feed of 100,000 workouts, deploy/bench-gateway.sh).
    var makeIndex: String?
    var workouts = 100_000
    var owner = "bench"
    /// The "xml" group: the size of the generated Apple Health export.xml, in MB.
    var xmlMegabytes = 80
    /// The "xml" group: an export.xml to read instead of a generated one.
    var xmlFile: String?
    /// The "xml" group: which readers to time (`own`, `foundation`), so that each can be measured
    /// alone under `/usr/bin/time -v`.
    var xmlParsers = ["own", "foundation"]
    /// When set, parse this file with this reader, print one line and stop (the "xml" group runs
    /// itself this way, under a memory cap and a timeout, for the entity-expansion checks).
    var parseXML: (parser: String, path: String)?
    /// The "tileset" group: the tilesets to open and read (files or URLs, in turn).
    var tilesets: [String] = []
    /// The "tileset" group: how many tiles to look up, and where (west,south,east,north; by
    /// default Liechtenstein, which the small archive and the planet-shaped one both hold).
    var lookups = 500
    var lookupBounds = GeoBounds(west: 9.4711, south: 47.0477, east: 9.6362, north: 47.2713)

    static let usage = """
        usage: workfeed-bench [--only GROUP[,GROUP]] [--runs N] [--sizes N,N,...] [--kinds route,heatmap] [--scales 1,2]
                                    [--themes light,dark] [--map-out DIRECTORY]   (the map group)
               workfeed-bench --dump-route N        (CSV of the synthetic route, for cairo_reference.py)
               workfeed-bench --samples DIRECTORY   (light and dark route and heatmap pictures)
               workfeed-bench --only import [--import-mb 1024] [--import-dir DIRECTORY]
               workfeed-bench --make-index PATH [--workouts 100000] [--owner bench]   (an index for the gateway benchmark)
               workfeed-bench --only xml [--xml-mb 80 | --xml-file export.xml] [--xml-parsers own,foundation]
               workfeed-bench --only tileset --tilesets FILE|URL[,...] [--lookups 500] [--lookup-bounds W,S,E,N] [--runs N]
               workfeed-bench --parse-xml own|foundation|foundation-resolving FILE   (one file, one line; used by "xml")
        groups: render, png, map, formats, dispatch, flood, fairshare, attack, import, index, scale, hash, xml, timezones, places, summaries, tileset
        """

    init(arguments: [String]) throws(BenchUsageError) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--only": groups = try Self.list(iterator.next(), argument)
            case "--runs": runs = try Self.number(iterator.next(), argument)
            case "--sizes": sizes = try Self.list(iterator.next(), argument).map { value throws(BenchUsageError) in try Self.number(value, argument) }
            case "--kinds": kinds = try Self.list(iterator.next(), argument)
            case "--themes": themes = try Self.list(iterator.next(), argument)
            case "--map-out": mapOut = try Self.text(iterator.next(), argument, "a directory")
            case "--scales":
                scales = try Self.list(iterator.next(), argument).map { value throws(BenchUsageError) in try Self.number(value, argument) }
            case "--dump-route": dumpRoutePoints = try Self.number(iterator.next(), argument)
            case "--samples": samplesDirectory = try Self.text(iterator.next(), argument, "a directory")
            case "--import-mb": importMegabytes = try Self.number(iterator.next(), argument)
            case "--import-dir": importDirectory = try Self.text(iterator.next(), argument, "a directory")
            case "--make-index": makeIndex = try Self.text(iterator.next(), argument, "a path")
            case "--xml-mb": xmlMegabytes = try Self.number(iterator.next(), argument)
            case "--xml-file": xmlFile = try Self.text(iterator.next(), argument, "a file")
            case "--xml-parsers": xmlParsers = try Self.list(iterator.next(), argument)
            case "--parse-xml":
                parseXML = (try Self.text(iterator.next(), argument, "a reader and a file"), try Self.text(iterator.next(), argument, "a file"))
            case "--tilesets": tilesets = try Self.list(iterator.next(), argument)
            case "--lookups": lookups = try Self.number(iterator.next(), argument)
            case "--lookup-bounds":
                let values = try Self.list(iterator.next(), argument).compactMap(Double.init)
                guard values.count == 4, values[0] < values[2], values[1] < values[3] else {
                    throw BenchUsageError("--lookup-bounds needs WEST,SOUTH,EAST,NORTH in degrees")
                }
                lookupBounds = GeoBounds(west: values[0], south: values[1], east: values[2], north: values[3])
            case "--workouts": workouts = try Self.number(iterator.next(), argument)
            case "--owner": owner = try Self.text(iterator.next(), argument, "an owner id")
            case "--help", "-h": throw BenchUsageError("")
            default: throw BenchUsageError("unknown argument \(argument)")
            }
        }
    }

    private static func number(_ value: String?, _ option: String) throws(BenchUsageError) -> Int {
        guard let value, let number = Int(value), number > 0 else { throw BenchUsageError("\(option) needs a positive number") }
        return number
    }

    private static func text(_ value: String?, _ option: String, _ what: String) throws(BenchUsageError) -> String {
        guard let value, !value.isEmpty else { throw BenchUsageError("\(option) needs \(what)") }
        return value
    }

    private static func list(_ value: String?, _ option: String) throws(BenchUsageError) -> [String] {
        guard let value, !value.isEmpty else { throw BenchUsageError("\(option) needs a value") }
        return value.split(separator: ",").map(String.init)
    }
}

struct BenchUsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
