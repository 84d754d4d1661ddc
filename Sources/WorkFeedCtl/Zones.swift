import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire
import WorkFeedPrivacy

extension WorkCtl {
    /// `workctl zones list|add|remove --owner ID`: an owner's privacy zones (docs/privacy.md).
    struct Zones: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, add or remove an owner's privacy zones: pictures hide the route around them.",
            discussion: """
                Every picture of the owner's workouts, route and heatmap, shows the route only outside \
                the zones (with a secret, stable margin: docs/privacy.md). A change makes exactly that \
                owner's pictures stale and queues them to be drawn again.
                """,
            subcommands: [List.self, Add.self, Remove.self], defaultSubcommand: List.self)

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List an owner's privacy zones.")
            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The owner.") var owner: String
            @Flag(name: .long, help: "Print as JSON.") var json = false

            func validate() throws { try validateOwner(owner) }

            func run() throws {
                try Zones.send(ZonesRequest(owner: owner), connection: connection, json: json)
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a privacy zone: a centre and a radius.")
            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The owner.") var owner: String
            @Option(name: .customLong("lat"), help: "The centre's latitude, degrees north.") var latitude: Double
            @Option(name: .customLong("lon"), help: "The centre's longitude, degrees east.") var longitude: Double
            @Option(name: .long, help: "Metres, 200 to 2000.") var radius: Double = 200
            @Flag(name: .long, help: "Print as JSON.") var json = false

            func validate() throws {
                try validateOwner(owner)
                do {
                    try PrivacyZone(id: 0, latitude: latitude, longitude: longitude, radius: radius).validate()
                } catch {
                    throw ValidationError("--\(["latitude": "lat", "longitude": "lon"][error.field] ?? error.field): \(error.message)")
                }
            }

            func run() throws {
                let zone = ZonesRequest.NewZone(latitude: latitude, longitude: longitude, radius: radius)
                try Zones.send(ZonesRequest(owner: owner, add: zone), connection: connection, json: json)
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a privacy zone by its id (see zones list).")
            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The owner.") var owner: String
            @Argument(help: "The zone's id.") var id: Int64
            @Flag(name: .long, help: "Print as JSON.") var json = false

            func validate() throws { try validateOwner(owner) }

            func run() throws {
                try Zones.send(ZonesRequest(owner: owner, remove: id), connection: connection, json: json)
            }
        }

        static func send(_ request: ZonesRequest, connection: ConnectionOptions, json: Bool) throws {
            var client = try connection.client()
            let reply: ZonesReply = try talking { () throws(ControlClientError) in try client.request(.zones, request) }
            if json {
                try printJSON(reply)
                if reply.refusal != nil { throw ExitCode.failure }
                return
            }
            if let refusal = reply.refusal {
                printError("zone not added: \(refusal.message)")
                throw ExitCode.failure
            }
            if let added = reply.added { say("added zone \(added.id)") }
            if let removed = reply.removed {
                say(removed ? "removed zone \(request.remove ?? 0)" : "owner \(request.owner) has no zone \(request.remove ?? 0)")
            }
            if reply.stale > 0 { say("\(reply.stale) pictures of \(request.owner) are stale and queued to be drawn again") }
            say(reply.zones.isEmpty ? "owner \(request.owner) has no privacy zones" : "ID  LATITUDE    LONGITUDE    RADIUS")
            for zone in reply.zones {
                say(
                    String(zone.id).padding(toLength: 4, withPad: " ", startingAt: 0)
                        + String(format: "%-11.6f %-12.6f %.0f m", zone.latitude, zone.longitude, zone.radius))
            }
            if request.remove != nil && reply.removed != true { throw WorkCtlExit.partial }
        }
    }
}
