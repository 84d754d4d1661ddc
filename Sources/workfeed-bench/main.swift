import Foundation

// workfeed-bench: speed and memory figures for docs/benchmarks.md. Each group is one function so
// that more groups (imports, say) can be added beside "render" and "png".
let options: BenchOptions
do {
    options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if !error.message.isEmpty { print(error.message) }
    print(BenchOptions.usage)
    exit(error.message.isEmpty ? 0 : 64)
}

do {
    if let points = options.dumpRoutePoints {
        print(SyntheticWorkout(points: points).csv, terminator: "")
    } else if let path = options.makeIndex {
        try IndexBench.makeIndex(at: path, workouts: options.workouts, owner: options.owner)
    } else if let directory = options.samplesDirectory {
        try Samples.write(to: directory)
    } else if let (parser, path) = options.parseXML {
        exit(XMLBench.parseOne(parser: parser, path: path))
    } else {
        let groups: [String: (BenchOptions) throws -> Void] = [
            "render": RenderBench.run,
            "png": RenderBench.compression,
            "dispatch": DispatchBench.run,
            "flood": FloodBench.run,
            "fairshare": FairShareBench.run,
            "attack": AttackBench.run,
            "import": ImportBench.run,
            "index": IndexBench.run,
            "scale": IndexBench.queueAtScale,
            "map": MapBench.run,
            "formats": FormatBench.run,
            "hash": HashBench.run,
            "xml": XMLBench.run,
            "timezones": TimeZoneBench.run,
            "places": PlaceBench.run,
            "summaries": SummaryBench.run,
            "tileset": TilesetBench.run,
        ]
        for name in options.groups {
            guard let group = groups[name] else {
                print("unknown group \(name)\n\(BenchOptions.usage)")
                exit(64)
            }
            try group(options)
            print("")
        }
    }
} catch {
    print("workfeed-bench: \(error)")
    exit(1)
}
