import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl settings show|set --owner ID`: an owner's settings (docs/settings.md).
    struct Settings: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or change an owner's settings: heart-rate zones, units, time zone, first weekday.",
            discussion: """
                The owner's heart-rate zones (from a maximum heart rate, or explicit bounds) colour their \
                heatmaps; a change makes exactly that owner's heatmaps stale and queues them to be drawn \
                again. Unset, the configured zones apply. Units, time zone and first weekday are kept \
                for the figures that use them and change no picture (docs/settings.md).
                """,
            subcommands: [Show.self, Change.self], defaultSubcommand: Show.self)

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show an owner's settings and the zones their heatmaps use.")
            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The owner.") var owner: String
            @Flag(name: .long, help: "Print as JSON.") var json = false

            func validate() throws { try validateOwner(owner) }

            func run() throws {
                try Settings.send(SettingsRequest(owner: owner), connection: connection, json: json)
            }
        }

        struct Change: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set",
                abstract: "Change some of an owner's settings; the others are kept.",
                discussion: "Example: workctl settings set --owner alice --max-hr 190 --units imperial --time-zone Europe/Berlin")
            @OptionGroup var connection: ConnectionOptions
            @Option(name: .long, help: "The owner.") var owner: String
            @Option(name: .customLong("max-hr"), help: "Maximum heart rate in bpm (100 to 250): the zones follow from it.")
            var maximumHeartRate: Double?
            @Option(
                name: .customLong("zone-bounds"),
                help: "Explicit zone bounds in bpm, increasing, comma-separated: the lowest rate of each zone above the first.")
            var zoneBounds: String?
            @Option(name: .long, help: "metric or imperial.") var units: String?
            @Option(name: .customLong("time-zone"), help: "An IANA time-zone id, such as Europe/Berlin.") var timeZone: String?
            @Option(name: .customLong("first-weekday"), help: "The week's first day: its name (monday) or 1...7 (1 is Sunday).")
            var firstWeekday: String?
            @Option(
                name: .customLong("card-figures"),
                help: "The figures share cards show, in order, comma-separated: \(ShareCardFigure.allCases.map(\.rawValue).joined(separator: ", ")).")
            var cardFigures: String?
            @Option(
                name: .long,
                help: "Settings to unset, comma-separated: \(OwnerSettings.Field.allCases.map(\.rawValue).joined(separator: ", ")).")
            var unset: String?
            @Flag(name: .long, help: "Print as JSON.") var json = false

            func validate() throws {
                try validateOwner(owner)
                _ = try request()
            }

            /// The request the options make, checked as the coordinator will check it.
            func request() throws -> SettingsRequest {
                var settings = OwnerSettings()
                switch (maximumHeartRate, zoneBounds) {
                case (_?, _?): throw ValidationError("give --max-hr or --zone-bounds, not both")
                case (let maximum?, nil): settings.heartRateZones = .maximumHeartRate(maximum)
                case (nil, let text?):
                    let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    let bounds = parts.compactMap(Double.init)
                    guard bounds.count == parts.count, !bounds.isEmpty else {
                        throw ValidationError("--zone-bounds: '\(text.prefix(80))' is not a comma-separated list of bpm")
                    }
                    settings.heartRateZones = .bounds(bounds)
                case (nil, nil): break
                }
                if let units {
                    guard let system = UnitSystem(rawValue: units) else {
                        throw ValidationError("--units: '\(units.prefix(40))' is not metric or imperial")
                    }
                    settings.units = system
                }
                settings.timeZone = timeZone
                if let firstWeekday {
                    guard let day = Weekday(text: firstWeekday) else {
                        throw ValidationError("--first-weekday: '\(firstWeekday.prefix(40))' is not a day's name or 1...7 (1 is Sunday)")
                    }
                    settings.firstWeekday = day
                }
                if let cardFigures {
                    do {
                        settings.cardFigures = try OwnerSettings.cardFigures(
                            cardFigures.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    } catch {
                        throw ValidationError("--card-figures: \(error.message)")
                    }
                }
                var fields: [OwnerSettings.Field]? = nil
                if let unset {
                    fields = try unset.split(separator: ",").map { word in
                        let name = word.trimmingCharacters(in: .whitespaces)
                        guard let field = OwnerSettings.Field(rawValue: name) else {
                            let known = OwnerSettings.Field.allCases.map(\.rawValue).joined(separator: ", ")
                            throw ValidationError("--unset: '\(name.prefix(40))' is not a setting (\(known))")
                        }
                        return field
                    }
                }
                do {
                    try settings.validate()
                } catch {
                    throw ValidationError("\(Self.option(for: error.field)): \(error.message)")
                }
                guard !settings.isEmpty || fields != nil else {
                    throw ValidationError(
                        "nothing to change: give --max-hr, --zone-bounds, --units, --time-zone, --first-weekday, --card-figures or --unset")
                }
                return SettingsRequest(owner: owner, set: settings.isEmpty ? nil : settings, unset: fields)
            }

            /// The option a settings field comes from.
            static func option(for field: String?) -> String {
                guard let field else { return "settings" }
                if field.hasPrefix("heartRateZones.maximumHeartRate") { return "--max-hr" }
                if field.hasPrefix("heartRateZones") { return "--zone-bounds" }
                if field.hasPrefix("cardFigures") { return "--card-figures" }
                return ["units": "--units", "timeZone": "--time-zone", "firstWeekday": "--first-weekday"][field] ?? field
            }

            func run() throws {
                try Settings.send(try request(), connection: connection, json: json)
            }
        }

        static func send(_ request: SettingsRequest, connection: ConnectionOptions, json: Bool) throws {
            var client = try connection.client()
            let reply: SettingsReply = try talking { () throws(ControlClientError) in try client.request(.settings, request) }
            if json {
                try printJSON(reply)
                if reply.refusal != nil { throw ExitCode.failure }
                return
            }
            if let refusal = reply.refusal {
                printError("settings not changed: \(refusal.message)")
                throw ExitCode.failure
            }
            if reply.stale > 0 { say("\(reply.stale) heatmaps of \(request.owner) are stale and queued to be drawn again") }
            for line in describe(reply, owner: request.owner) { say(line) }
        }

        /// The settings as lines for people: each value, or what applies while it is unset.
        static func describe(_ reply: SettingsReply, owner: String) -> [String] {
            let settings = reply.settings
            let bounds = reply.heartRateZones.bounds.map { String(Int($0)) }.joined(separator: " / ") + " bpm"
            let zones: String
            switch settings.heartRateZones {
            case .maximumHeartRate(let maximum)?:
                let note = reply.heartRateZones.source == .maximumHeartRate ? "" : " (not in use: configured zones)"
                zones = "maximum heart rate \(Int(maximum)) bpm: zones from \(bounds)\(note)"
            case .bounds?:
                let note = reply.heartRateZones.source == .bounds ? "" : " (not in use: they do not fill the configured zones, which apply)"
                zones = "bounds \(bounds)\(note)"
            case nil: zones = "configured: \(bounds)"
            }
            return [
                "owner          \(owner.escapedForDisplay)",
                "heart-rate     \(zones)",
                "units          \(settings.units?.rawValue ?? "metric (default)")",
                "time zone      \(settings.timeZone ?? "(default: the zone of the latest workout)")",
                "first weekday  \(settings.firstWeekday?.name ?? "monday (default)")",
            ]
        }
    }
}
