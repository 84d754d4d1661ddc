import ArgumentParser
import Testing
import WorkFeedCtl
import WorkFeedModel

/// workctl's closed choices are parsed by swift-argument-parser (issue 41): a list of kinds,
/// themes or activities is taken whole or refused before the command runs, naming the option.
@Suite struct WorkCtlArgumentTests {
    static let at = ["--coordinator", "tcp://127.0.0.1:1"]

    @Test func listsOfKindsThemesAndActivitiesAreParsed() throws {
        for arguments in [
            ["enqueue", "--all", "--kind", "route,pace", "--theme", "light,sepia-2", "--activity", "running,cycling"],
            ["request", "abc123", "--kind", "elevation", "--theme", "dark"],
            ["retry", "--all", "--kind", "heatmap"],
        ] {
            #expect(throws: Never.self, "\(arguments)") { _ = try WorkCtl.parseAsRoot(arguments + Self.at) }
        }
    }

    @Test(arguments: [
        (["enqueue", "--all", "--kind", "route,foo"], "--kind"),
        (["enqueue", "--all", "--kind", "route,,heatmap"], "--kind"),
        (["enqueue", "--all", "--theme", "Dark"], "--theme"),
        (["enqueue", "--all", "--activity", "swimming"], "--activity"),
        (["request", "abc123", "--kind", ""], "--kind"),
        (["render", "file.gpx", "--out", "/tmp/x", "--kind", "pace2"], "--kind"),
    ])
    func aValueThatIsNotAChoiceIsRefusedNamingItsOption(arguments: [String], option: String) {
        do {
            _ = try WorkCtl.parseAsRoot(arguments + (arguments[0] == "render" ? [] : Self.at))
            Issue.record("\(arguments) was taken")
        } catch {
            let message = WorkCtl.message(for: error)
            #expect(message.contains(option) && message.contains("invalid"), "\(arguments): \(message)")
        }
    }
}
