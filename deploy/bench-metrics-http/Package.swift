// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "MetricsExperiment",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .executableTarget(name: "hand-metrics", dependencies: [
            .product(name: "Logging", package: "swift-log"), .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .executableTarget(name: "nio-hand-metrics", dependencies: [
            .product(name: "Logging", package: "swift-log"), .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .executableTarget(name: "hb-metrics", dependencies: [
            .product(name: "Logging", package: "swift-log"), .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ]
)
