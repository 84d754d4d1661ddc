// swift-tools-version: 6.1
import PackageDescription

/// Every Swift target is built in Swift 6 mode with the same strictness: C types stay inside the
/// modules that wrap C, and a module imports what it uses.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "WorkFeed",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "workfeed-coordinator", targets: ["workfeed-coordinator"]),
        .executable(name: "workfeed-worker", targets: ["workfeed-worker"]),
        .executable(name: "workctl", targets: ["workctl"]),
        .executable(name: "workfeed-bench", targets: ["workfeed-bench"]),
        .executable(name: "workfeed-gateway", targets: ["workfeed-gateway"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // HTTPFields and methods, for the gateway tests that call its router in process.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // NIOHTTPTypes: the gateway's request-head deadline sits among Hummingbird's HTTP handlers.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Outgoing HTTP: the S3 picture store.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // FilePath, for swift-configuration's file provider (WorkFeedConfig).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Multipart uploads (curl -F, FormData, the phones' HTTP clients) at the gateway.
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        // The PostgreSQL index of several coordinators (issue 34).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS to the index's server (sslmode=require, verify-full).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // C libraries from Debian (libzmq3-dev, libpng-dev, zlib1g-dev), linked in their module maps.
        .systemLibrary(name: "CZeroMQ"),
        .systemLibrary(name: "CLibPNG"),
        .systemLibrary(name: "CZlib"),
        // libdeflate-dev: the PNG encoder's DEFLATE; libfreetype-dev: text (map attribution).
        .systemLibrary(name: "CLibDeflate"),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2"),
        // libharfbuzz-dev: shaping map labels (ligatures, kerning, Arabic and Indic scripts).
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz"),
        // libturbojpeg0-dev: JPEG tiles of raster tilesets.
        .systemLibrary(name: "CTurboJPEG"),
        // libwebp-dev: the WebP pictures phones may ask for instead of the PNG (docs/rendering.md, "WebP").
        .systemLibrary(name: "CLibWebP"),

        // The values every part shares: workouts and routes, owners and their settings, jobs and
        // picture kinds, failure codes, summaries, the feed's shape, the series codec.
        // swift-crypto: SHA-256 (content hashes, cache keys), faster than our own (docs/architecture.md).
        .target(
            name: "WorkFeedModel", dependencies: ["WorkFeedBytes", "WorkFeedTimeZones", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strictSettings),
        // How a picture looks and the key that names it: colours, route, heatmap and map styles, a
        // theme's style, PictureSpec and the cache key.
        .target(name: "WorkFeedStyle", dependencies: ["WorkFeedModel"], swiftSettings: strictSettings),
        // Privacy zones and what they hide: the owner's zones and end trim, cutting a route.
        .target(name: "WorkFeedPrivacy", dependencies: ["WorkFeedModel"], swiftSettings: strictSettings),
        // The owners' bearer tokens: signed with HS256 (workctl token create), checked with what the
        // gateway is configured with (HS256, ES256, RS256; swift-crypto).
        .target(
            name: "WorkFeedTokens",
            dependencies: [
                "WorkFeedModel", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // Leaving the cooperative pool: BlockingWork (bounded, on NIO's thread pool) and StopRequest
        // (how a thread that owns ZeroMQ sockets is told to stop).
        .target(
            name: "WorkFeedThreads", dependencies: [.product(name: "NIOPosix", package: "swift-nio")], swiftSettings: strictSettings),
        // Reading binary files' fields in order, each checked: the time-zone map, the places file, the series.
        .target(name: "WorkFeedBytes", swiftSettings: strictSettings),
        // The IANA time zone of a position: the shipped boundary file (deploy/make-timezones.sh) and its reader.
        .target(name: "WorkFeedTimeZones", dependencies: ["WorkFeedBytes"], resources: [.copy("Data")], swiftSettings: strictSettings),
        // The populated place a workout started in: the shipped GeoNames file (deploy/make-places.sh) and its reader.
        .target(name: "WorkFeedPlaces", dependencies: ["WorkFeedBytes", "WorkFeedModel"], resources: [.copy("Data")], swiftSettings: strictSettings),
        // Readers of workout files (GPX, ...) into the model.
        .target(name: "WorkFeedImport", dependencies: ["WorkFeedModel", "WorkFeedTimeZones", "CZlib"], swiftSettings: strictSettings),
        // The SQLite index: workouts, series, jobs, anchors.
        .target(
            name: "WorkFeedIndex",
            dependencies: [
                "WorkFeedStyle", "WorkFeedPrivacy", "WorkFeedModel", "WorkFeedPlaces", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The PostgreSQL index (docs/postgres-index.md): its connection, schema and leases, over postgres-nio.
        .target(
            name: "WorkFeedIndexPostgres",
            dependencies: [
                "WorkFeedIndex", "WorkFeedModel", "WorkFeedPrivacy", "WorkFeedPlaces", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Map tiles: MBTiles and PMTiles containers (PMTiles also by https:// and s3:// range
        // requests), the Mapbox Vector Tile decoder, tileset identity.
        .target(
            name: "WorkFeedTiles",
            dependencies: [
                "WorkFeedStyle", "WorkFeedModel", "WorkFeedStore", "WorkFeedS3", "CZlib", .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Route and heatmap pictures on the basemap, text through FreeType, PNG encoding.
        .target(
            name: "WorkFeedRender",
            dependencies: [
                "WorkFeedStyle", "WorkFeedModel", "WorkFeedTiles", "WorkFeedPlaces", "CLibPNG", "CLibDeflate", "CLibWebP", "CFreeType", "CHarfBuzz",
                "CTurboJPEG",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // ZeroMQ sockets and the coordinator/worker/control message formats.
        .target(
            name: "WorkFeedWire",
            dependencies: ["WorkFeedPrivacy", "WorkFeedModel", "CZeroMQ"],
            swiftSettings: strictSettings
        ),
        // Prometheus metrics and the small HTTP endpoint that serves them.
        .target(
            name: "WorkFeedMetrics",
            dependencies: [
                "WorkFeedModel", .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // S3-compatible object storage: the Signature Version 4 signer and a small client over
        // async-http-client (Soto does not resolve here; docs/architecture.md, "Picture storage").
        .target(
            name: "WorkFeedS3",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Tests only, what several test targets share: a real S3-compatible server (moto, from
        // var/test-python) started on loopback, and log lines captured from a Logger.
        .target(
            name: "WorkFeedTesting", dependencies: ["WorkFeedS3", .product(name: "Logging", package: "swift-log")], swiftSettings: strictSettings),
        // The index contract's semantics, checked through its protocols alone, for every backend's tests.
        .target(
            name: "WorkFeedIndexContract", dependencies: ["WorkFeedIndex", "WorkFeedModel", "WorkFeedPrivacy", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        // Where pictures live: the PictureStore interface, the shared directory and S3 behind it.
        // WorkFeedStyle: the largest picture drawn bounds what a read takes in (PictureSpec.maximumEncodedBytes).
        .target(name: "WorkFeedStore", dependencies: ["WorkFeedModel", "WorkFeedStyle", "WorkFeedS3"], swiftSettings: strictSettings),
        // Configuration files, environment and flags for every process.
        .target(
            name: "WorkFeedConfig",
            dependencies: [
                "WorkFeedStyle", "WorkFeedPrivacy", "WorkFeedModel", "WorkFeedStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WorkFeedCoordinator",
            dependencies: [
                "WorkFeedThreads", "WorkFeedStyle", "WorkFeedPrivacy", "WorkFeedModel", "WorkFeedIndex", "WorkFeedIndexPostgres", "WorkFeedWire", "WorkFeedConfig", "WorkFeedMetrics", "WorkFeedTiles", "WorkFeedStore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // Kept originals sealed with ChaCha20-Poly1305 when originals.key_file is set.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WorkFeedWorker",
            dependencies: [
                "WorkFeedThreads", "WorkFeedStyle", "WorkFeedModel", "WorkFeedRender", "WorkFeedWire", "WorkFeedConfig", "WorkFeedMetrics", "WorkFeedTiles", "WorkFeedStore", "WorkFeedS3",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // workctl's commands, kept in a library so that tests run them against a real coordinator.
        .target(
            name: "WorkFeedCtl",
            dependencies: [
                "WorkFeedTokens", "WorkFeedStyle", "WorkFeedPrivacy", "WorkFeedModel", "WorkFeedWire", "WorkFeedImport", "WorkFeedRender", "WorkFeedConfig", "WorkFeedTiles", "WorkFeedStore",
                "WorkFeedIndex", "WorkFeedIndexPostgres", "WorkFeedThreads",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The HTTP edge for the app: feed, pictures, uploads, on-demand requests, tokens.
        .target(
            name: "WorkFeedGateway",
            dependencies: [
                "WorkFeedTokens", "WorkFeedThreads", "WorkFeedPrivacy", "WorkFeedModel", "WorkFeedWire", "WorkFeedImport", "WorkFeedConfig", "WorkFeedStore",
                "WorkFeedStyle",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ],
            resources: [.copy("Page")],
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "workfeed-coordinator",
            dependencies: [
                "WorkFeedCoordinator", "WorkFeedConfig", "WorkFeedWire", "WorkFeedModel", "WorkFeedThreads",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "workfeed-worker",
            dependencies: [
                "WorkFeedWorker", "WorkFeedConfig", "WorkFeedWire", "WorkFeedModel", "WorkFeedThreads",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "workctl",
            dependencies: ["WorkFeedCtl", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "workfeed-gateway",
            dependencies: [
                "WorkFeedGateway", "WorkFeedConfig", "WorkFeedModel", "WorkFeedWire", "WorkFeedThreads",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Prints speed and memory figures; see docs/benchmarks.md.
        .executableTarget(
            name: "workfeed-bench",
            dependencies: [
                "WorkFeedModel", "WorkFeedStyle", "WorkFeedStore", "WorkFeedRender", "WorkFeedImport", "WorkFeedIndex", "WorkFeedWire",
                "WorkFeedCoordinator",
                // The attack group's races (issue 23) run a real worker in the process.
                "WorkFeedConfig", "WorkFeedTiles", "WorkFeedWorker", "WorkFeedTimeZones", "WorkFeedPlaces", .product(name: "Logging", package: "swift-log"),
                // The dispatch group's PostgreSQL server (a cluster of its own, durable).
                "WorkFeedTesting",
                // The "hash" group measures our SHA-256 against swift-crypto's.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),

        .testTarget(name: "WorkFeedModelTests", dependencies: ["WorkFeedModel", "WorkFeedTesting"], swiftSettings: strictSettings),
        .testTarget(name: "WorkFeedStyleTests", dependencies: ["WorkFeedStyle", "WorkFeedModel"], swiftSettings: strictSettings),
        .testTarget(name: "WorkFeedPrivacyTests", dependencies: ["WorkFeedPrivacy", "WorkFeedModel"], swiftSettings: strictSettings),
        .testTarget(name: "WorkFeedThreadsTests", dependencies: ["WorkFeedThreads"], swiftSettings: strictSettings),
        // Reads Tests/Data/tzdata (zone1970.tab, with its origin beside it).
        // The shipped places file, looked up at real positions.
        .testTarget(name: "WorkFeedPlacesTests", dependencies: ["WorkFeedPlaces"], swiftSettings: strictSettings),
        .testTarget(name: "WorkFeedTimeZonesTests", dependencies: ["WorkFeedTimeZones", "WorkFeedImport", "WorkFeedModel"], swiftSettings: strictSettings),
        .testTarget(
            name: "WorkFeedStoreTests", dependencies: ["WorkFeedStore", "WorkFeedModel", "WorkFeedS3", "WorkFeedTesting"],
            swiftSettings: strictSettings),
        // Reads Tests/Data/aws-sigv4-test-suite.
        .testTarget(name: "WorkFeedS3Tests", dependencies: ["WorkFeedS3"], swiftSettings: strictSettings),
        .testTarget(
            name: "WorkFeedConfigTests",
            dependencies: ["WorkFeedStyle", "WorkFeedConfig", "WorkFeedModel", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WorkFeedImportTests",
            dependencies: ["WorkFeedImport", "WorkFeedModel"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WorkFeedRenderTests",
            dependencies: [
                "WorkFeedStyle", "WorkFeedPrivacy", "WorkFeedRender", "WorkFeedModel", "WorkFeedTiles", "WorkFeedImport", "WorkFeedIndex", "WorkFeedPlaces",
                "CTurboJPEG",
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // Reads Tests/Data (shared fixtures with their origins beside them).
        .testTarget(
            name: "WorkFeedTilesTests",
            dependencies: [
                "WorkFeedTiles", "WorkFeedModel", "WorkFeedStore", "WorkFeedS3", "WorkFeedTesting", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WorkFeedIndexTests",
            dependencies: [
                "WorkFeedIndex", "WorkFeedIndexContract", "WorkFeedModel",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The PostgreSQL index against a real server (WorkFeedTesting's PostgresTestServer).
        .testTarget(
            name: "WorkFeedIndexPostgresTests",
            dependencies: [
                "WorkFeedIndexPostgres", "WorkFeedIndex", "WorkFeedIndexContract", "WorkFeedModel", "WorkFeedPrivacy", "WorkFeedTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // The coordinator's decisions (dispatch order, fair share, leases, reports, deletes, zones):
        // its dispatcher over a real index, without sockets or threads.
        .testTarget(
            name: "WorkFeedCoordinatorTests",
            dependencies: [
                "WorkFeedCoordinator", "WorkFeedConfig", "WorkFeedIndex", "WorkFeedIndexPostgres", "WorkFeedMetrics", "WorkFeedModel",
                "WorkFeedPrivacy", "WorkFeedS3", "WorkFeedStore", "WorkFeedTesting", "WorkFeedWire",
                .product(name: "Logging", package: "swift-log"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WorkFeedWireTests",
            dependencies: ["WorkFeedWire", "WorkFeedModel"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "WorkFeedPrivacy", "WorkFeedTokens", "WorkFeedStyle", "WorkFeedCoordinator", "WorkFeedWorker", "WorkFeedCtl", "WorkFeedWire", "WorkFeedRender",
                "WorkFeedModel", "WorkFeedConfig", "WorkFeedImport", "WorkFeedMetrics", "WorkFeedIndex", "WorkFeedIndexPostgres", "WorkFeedStore",
                "WorkFeedS3", "WorkFeedTesting", "WorkFeedTiles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The registries' text, and the alert rules (deploy/prometheus) read as YAML.
                .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "Yams", package: "Yams"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        // The gateway over real HTTP, with a real coordinator and workers on loopback.
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "WorkFeedTokens", "WorkFeedThreads", "WorkFeedStyle", "WorkFeedGateway", "WorkFeedCoordinator", "WorkFeedWorker", "WorkFeedConfig", "WorkFeedModel", "WorkFeedWire",
                "WorkFeedStore", "WorkFeedS3", "WorkFeedTesting", "WorkFeedRender",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // Real processes killed with SIGKILL and restarted; random frames at open sockets.
        .testTarget(
            name: "ChaosTests",
            dependencies: [
                // WorkFeedTesting: the PostgreSQL server of the runs on PostgreSQL.
                "WorkFeedStyle", "WorkFeedWire", "WorkFeedModel", "WorkFeedRender", "WorkFeedTesting",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
    ]
)
