import Foundation
import Testing
import WorkFeedModel

/// A bucket's figures as the API gives them (``SummaryTotals/figures``): lengths as a
/// ``Quantity`` in the owner's units, heart rate in whole beats rounded once (docs/summaries.md).
@Suite struct SummaryFiguresTests {
    static func contribution(metres: Double, elevation: Double, elapsed: Double, heartRate: Double?, maximum: Double?) -> SummaryContribution {
        var record = FeedItemTests.record(.running, distance: metres, elapsed: elapsed)
        record.elevationGain = elevation
        record.heartRateAverage = heartRate
        record.heartRateMax = maximum
        return SummaryContribution(record: record, heartRate: [], zoneBounds: [])
    }

    static func totals(_ parts: [SummaryContribution]) -> SummaryTotals {
        var totals = SummaryTotals()
        for (number, part) in parts.enumerated() {
            totals.add(part, id: WorkoutID("0b1c4d5e-0000-8000-8000-00000000000\(number)")!, activity: .running)
        }
        return totals
    }

    /// Rounded once, from the averages as measured: 150.5 and 150.3 over equal times are 150.4,
    /// so 150 (their cards' 151 and 150 would give 150.5, so 151: half a beat of error a workout).
    @Test func theAverageHeartRateIsRoundedOnceFromTheMeasuredAverages() {
        let figures = Self.totals([
            Self.contribution(metres: 5000, elevation: 10, elapsed: 1800, heartRate: 150.5, maximum: 170.4),
            Self.contribution(metres: 5000, elevation: 10, elapsed: 1800, heartRate: 150.3, maximum: 171.5),
        ]).figures
        #expect(figures.heartRateAverage == 150)
        #expect(figures.heartRateMax == 172)
        // Halves up, exactly: 145 and 146 over equal times are 145.5.
        let tie = Self.totals([
            Self.contribution(metres: 5000, elevation: 10, elapsed: 1000, heartRate: 145, maximum: nil),
            Self.contribution(metres: 5000, elevation: 10, elapsed: 1000, heartRate: 146, maximum: nil),
        ]).figures
        #expect(tie.heartRateAverage == 146 && tie.heartRateMax == nil)
        // Weighted by elapsed time: 140 for an hour and 170 for 20 minutes are 147.5, so 148.
        let weighted = Self.totals([
            Self.contribution(metres: 5000, elevation: 10, elapsed: 3600, heartRate: 140, maximum: nil),
            Self.contribution(metres: 5000, elevation: 10, elapsed: 1200, heartRate: 170, maximum: nil),
        ]).figures
        #expect(weighted.heartRateAverage == 148)
        let none = Self.totals([Self.contribution(metres: 5000, elevation: 0, elapsed: 600, heartRate: nil, maximum: nil)])
        #expect(none.figures.heartRateAverage == nil)
    }

    /// Kilometres and metres in the index's answer; miles and feet once in the owner's units, the
    /// longest workout's distance with them (its speed was already).
    @Test func lengthsAreQuantitiesInTheOwnersUnits() {
        let totals = Self.totals([
            Self.contribution(metres: 10_000, elevation: 152.4, elapsed: 3000, heartRate: nil, maximum: nil),
            Self.contribution(metres: 6093.75, elevation: 0.001, elapsed: 2000, heartRate: nil, maximum: nil),
        ])
        let metric = totals.figures
        #expect(metric.distance == Quantity(value: 16.09375, unit: .kilometres))
        #expect(metric.elevationGain == Quantity(value: 152.401, unit: .metres))
        #expect(metric.longest?.distance == Quantity(value: 10, unit: .kilometres))
        let imperial = metric.expressed(in: .imperial)
        #expect(imperial.distance == Quantity(value: 10.000193, unit: .miles))
        #expect(imperial.elevationGain == Quantity(value: 500.003, unit: .feet))
        #expect(imperial.longest?.distance == Quantity(value: 6.213712, unit: .miles))
        #expect(imperial.longest?.speed?.unit == .milesPerHour)
        #expect(SummaryFigures.empty(zones: 2).expressed(in: .imperial).distance == Quantity(value: 0, unit: .miles))
        #expect(metric.expressed(in: .metric) == metric)
    }
}
