import Foundation
import Testing

/// `make attack` in its smaller form (deploy/attack.sh with ATTACK_SMALL=1): every attack of issues
/// 13, 23 and 37 against the built programs, each printing what it tried and what happened; none
/// may break through. (The full-disk attack is FullCacheTests, which the suite runs on its own;
/// the bucket's faults, section 5, need moto in var/test-python and are skipped without it.)
@Suite("Attack", .serialized) struct AttackTests {
    @Test func everyAttackOfTheIssueIsHeld() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = package.appendingPathComponent("deploy/attack.sh")
        let binaries = try Binaries.directory()
        try #require(
            FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent("workfeed-bench").path),
            "workfeed-bench is not built beside the other programs (swift build --build-tests builds it)")
        let result = try runToCompletion(
            URL(fileURLWithPath: "/bin/bash"), [script.path],
            environment: ["ATTACK_SMALL": "1", "ATTACK_SKIP_BUILD": "1", "WORKFEED_BIN_DIR": binaries.path], timeout: 900)
        for line in result.output.split(separator: "\n") where line.hasPrefix("attack") { print(line) }
        #expect(result.status == 0, "deploy/attack.sh exited \(result.status):\n\(result.output.suffix(4000))")
        let counts = result.output.split(separator: "\n").last { $0.hasPrefix("attack: ") && $0.contains(" tried, ") }
        #expect(counts?.contains(" 0 broke") == true, "\(String(describing: counts))")
        #expect(!result.output.contains(": BROKE:"), "\(result.output.suffix(4000))")
    }
}
