import Foundation
import Testing
@testable import WorkFeedGateway

/// ``PictureVerdicts``: what the gateway knows of keys without asking the index (issue 37).
@Suite struct PictureVerdictsTests {
    let key = String(repeating: "ab", count: 32)

    @Test func aKeyNotedCurrentIsCurrentForItsLifetimeOnly() {
        let verdicts = PictureVerdicts()
        let start = ContinuousClock.now
        #expect(!verdicts.isCurrent(key, now: start))
        verdicts.noteCurrent(key, now: start)
        #expect(verdicts.isCurrent(key, now: start + .seconds(299)))
        #expect(!verdicts.isCurrent(key, now: start + PictureVerdicts.lifetime))
    }

    /// A release ends it at once, and what was learnt before the release (noted after it) is not
    /// taken as current while the release is remembered.
    @Test func aReleasedKeyIsNotTakenAsCurrentFromOlderNews() {
        let verdicts = PictureVerdicts()
        let start = ContinuousClock.now
        verdicts.noteCurrent(key, now: start)
        verdicts.release([key], now: start + .seconds(1))
        #expect(!verdicts.isCurrent(key, now: start + .seconds(1)))
        #expect(verdicts.wasReleased(key, now: start + .seconds(2)))
        verdicts.noteCurrent(key, now: start + .seconds(2))
        #expect(!verdicts.isCurrent(key, now: start + .seconds(2)), "news older than the release taken as current")
        // Once the release is forgotten, the key may be current again (a zone removed brought it back).
        let later = start + .seconds(1) + PictureVerdicts.lifetime
        #expect(!verdicts.wasReleased(key, now: later))
        verdicts.noteCurrent(key, now: later)
        #expect(verdicts.isCurrent(key, now: later))
    }

    /// Bounded: past its capacity the current keys are cut to half (a question each later), the
    /// released ones to their newest half (those protect).
    @Test func bothListsAreBounded() {
        let verdicts = PictureVerdicts(capacity: 10)
        let start = ContinuousClock.now
        let keys = (0..<11).map { String(format: "%064x", $0) }
        for (number, key) in keys.enumerated() { verdicts.noteCurrent(key, now: start + .milliseconds(number)) }
        #expect(keys.filter { verdicts.isCurrent($0, now: start + .seconds(1)) }.count == 5)
        for (number, key) in keys.enumerated() { verdicts.release([key], now: start + .milliseconds(number)) }
        let remembered = keys.filter { verdicts.wasReleased($0, now: start + .seconds(1)) }
        #expect(remembered == Array(keys.suffix(5)), "\(remembered.count) kept, not the newest five")
    }
}
