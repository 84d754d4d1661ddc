import GRDB

extension WorkoutIndex {
    /// "v13: summaries" (issue 28, docs/summaries.md): owners' totals per day, week, month and
    /// year in their own calendar, kept in the transaction that changes the workouts.
    ///
    /// - `summary_owner`: the calendar and zones an owner's summaries were built with, and the
    ///   state of a rebuild (`rebuild_pending`: start again from nothing; `rebuild_after`: the
    ///   last workout id counted so far, '' before the first, NULL when none is running).
    /// - `workout_summary`: what each workout adds to its buckets, in whole units (mm, ms,
    ///   calories), with the local day it started on in its owner's zone: what is taken away
    ///   again, exactly, when the workout changes or goes.
    /// - `summary_bucket`: one row per owner, period, activity ('all' for all of them) and
    ///   bucket (its first local day, days since 1970-01-01), only while it counts a workout.
    ///
    /// Every owner with workouts starts with a rebuild, which the coordinator runs in steps.
    static func registerSummaries(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13: summaries") { db in
            try db.execute(
                sql: """
                    CREATE TABLE summary_owner (
                        owner TEXT PRIMARY KEY NOT NULL,
                        time_zone TEXT,
                        first_weekday INTEGER,
                        zone_bounds TEXT,
                        rebuild_pending INTEGER NOT NULL DEFAULT 0,
                        rebuild_after TEXT,
                        rebuild_done INTEGER NOT NULL DEFAULT 0,
                        rebuild_total INTEGER NOT NULL DEFAULT 0
                    ) STRICT;
                    CREATE INDEX summary_owner_rebuilding ON summary_owner (owner) WHERE rebuild_pending = 1 OR rebuild_after IS NOT NULL;
                    CREATE TABLE workout_summary (
                        workout_id TEXT PRIMARY KEY NOT NULL,
                        owner TEXT NOT NULL,
                        activity TEXT NOT NULL,
                        local_day INTEGER NOT NULL,
                        distance INTEGER NOT NULL,
                        moving INTEGER NOT NULL,
                        elapsed INTEGER NOT NULL,
                        climb INTEGER NOT NULL,
                        calories INTEGER NOT NULL,
                        hr_time INTEGER NOT NULL,
                        hr_weighted INTEGER NOT NULL,
                        hr_max REAL,
                        zones TEXT NOT NULL
                    ) STRICT, WITHOUT ROWID;
                    CREATE INDEX workout_summary_by_day ON workout_summary (owner, local_day);
                    CREATE TABLE summary_bucket (
                        owner TEXT NOT NULL,
                        period TEXT NOT NULL,
                        activity TEXT NOT NULL,
                        start_day INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        distance INTEGER NOT NULL,
                        moving INTEGER NOT NULL,
                        elapsed INTEGER NOT NULL,
                        climb INTEGER NOT NULL,
                        calories INTEGER NOT NULL,
                        hr_time INTEGER NOT NULL,
                        hr_weighted INTEGER NOT NULL,
                        hr_max REAL,
                        zones TEXT NOT NULL,
                        longest_id TEXT,
                        longest_distance INTEGER,
                        longest_moving INTEGER,
                        fastest_id TEXT,
                        fastest_distance INTEGER,
                        fastest_moving INTEGER,
                        PRIMARY KEY (owner, period, start_day, activity)
                    ) STRICT, WITHOUT ROWID;
                    INSERT INTO summary_owner (owner, rebuild_pending) SELECT DISTINCT owner, 1 FROM workout;
                    """)
        }
    }
}
