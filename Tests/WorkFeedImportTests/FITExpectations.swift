import WorkFeedModel

/// FIT fixtures and what they must read as; see ``Expected`` for where the values come from.
enum FITExpectations {
    static let all: [Expected] = [
        Expected(
            "fit/coros-pace2_ride_misaligned-fields.fit",
            points: 10305, segments: 6, heartRate: 8946, activity: .cycling,
            // Its local_timestamp equals its timestamp: no offset from the file (Bogotá is -05:00;
            // WorkoutFileReader looks it up, WorkoutTimeZoneTests).
            timeZoneOffset: nil,
            first: .init(4.72321811132133, -73.97118078544736, 1603624250.0),
            last: .init(4.665049044415355, -73.87279274873435, 1603636937.0),
            start: 1603624219.0, end: 1603636937.0,
            sourceID: "972608787"),
        Expected(
            "fit/garmin-edge820_ride_hr.fit",
            points: 15, segments: 1, heartRate: 15, activity: .cycling,
            timeZoneOffset: -25200,
            first: .init(37.414756743237376, -122.06888635642827, 1497283815.0),
            last: .init(37.418845100328326, -122.0688536670059, 1497283880.0),
            start: 1497283815.0, end: 1497283880.0,
            sourceID: "3932942223-866218215"),
        Expected(
            "fit/garmin-edge_ride_2020_short.fit",
            points: 96, segments: 2, heartRate: 96, activity: .cycling,
            timeZoneOffset: 7200,
            first: .init(52.15776275843382, 4.491067975759506, 1591023160.0),
            last: .init(52.15988379903138, 4.4795861933380365, 1591023286.0),
            start: 1591023160.0, end: 1591023286.0,
            sourceID: "3907354759-959957560"),
        Expected(
            "fit/garmin-fenix2_run_hr_4laps.fit",
            points: 2809, segments: 1, heartRate: 2808, activity: .running,
            timeZoneOffset: 7200,
            first: .init(58.95918281748891, 5.728839039802551, 1439649908.0),
            last: .init(58.95881451666355, 5.729834055528045, 1439652741.0),
            start: 1439649908.0, end: 1439652741.0,
            sourceID: "3882015183-808587161"),
        Expected(
            "fit/garmin-fenix5_run_hr.fit",
            points: 21, segments: 1, heartRate: 21, activity: .running,
            timeZoneOffset: -25200,
            first: .init(38.22978727519512, -122.63370391912758, 1497191649.0),
            last: .init(38.228525295853615, -122.63454345054924, 1497191706.0),
            start: 1497191649.0, end: 1497191706.0,
            sourceID: "3945849289-866126049"),
        Expected(
            "fit/garmin-fenix5_walk_hr.fit",
            points: 17, segments: 1, heartRate: 17, activity: .walking,
            timeZoneOffset: -25200,
            first: .init(38.23051960207522, -122.63332187198102, 1497191571.0),
            last: .init(38.22993722744286, -122.63355757109821, 1497191617.0),
            start: 1497191571.0, end: 1497191617.0,
            sourceID: "3945849289-866125971"),
        Expected(
            "fit/garmin_indoor-trainer_no-gps_hr.fit",
            points: 0, segments: 0, heartRate: 2263, activity: .cycling,
            timeZoneOffset: nil,
            first: nil,
            last: nil,
            start: 1320238459.0, end: 1320240722.0,
            sourceID: "3818583228-689172859"),
        Expected(
            "fit/slither_garmin_run_hr.fit",
            points: 716, segments: 1, heartRate: 718, activity: .running,
            timeZoneOffset: 3600,
            first: .init(53.07280213572085, 8.803672660142183, 1615633049.0),
            last: .init(53.072872292250395, 8.80342472344637, 1615636137.0),
            start: 1615633049.0, end: 1615636137.0,
            sourceID: "3347904420-984567449"),
        Expected(
            "fit/wahoo-elemnt-bolt_ride_dev-data-quirk.fit",
            points: 131, segments: 1, heartRate: 0, activity: .cycling,
            timeZoneOffset: 7200,
            first: .init(49.870526706799865, 8.622173359617591, 1503303481.0),
            last: .init(49.87263768911362, 8.627756712958217, 1503303611.0),
            start: 1503303480.0, end: 1503303611.0,
            sourceID: "1130163200-872237881"),
    ]
}
