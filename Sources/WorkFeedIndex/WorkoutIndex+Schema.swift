import Foundation
import GRDB
import WorkFeedModel
import WorkFeedPlaces

extension WorkoutIndex {
    /// The schema's history with the default owner named ``Owner/defaultName``.
    static var migrator: DatabaseMigrator { migrator(defaultOwner: Owner.defaultName) }

    /// The schema's history. Migrations are never edited once released; a change is a new one.
    /// - Parameter defaultOwner: the owner that "v7: owners" gives the workouts already stored
    ///   (configuration's `owners.default`).
    static func migrator(defaultOwner: String) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: workouts, series, jobs, anchors") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value ANY NOT NULL
                    ) STRICT;

                    CREATE TABLE workout (
                        id TEXT PRIMARY KEY NOT NULL,
                        source TEXT NOT NULL,
                        source_id TEXT NOT NULL,
                        activity TEXT NOT NULL,
                        name TEXT,
                        start_at REAL,
                        end_at REAL,
                        tz_offset INTEGER,
                        distance REAL NOT NULL,
                        duration REAL,
                        elevation_gain REAL,
                        hr_avg REAL,
                        hr_max REAL,
                        point_count INTEGER NOT NULL,
                        route_version INTEGER NOT NULL,
                        route_hash TEXT NOT NULL,
                        hr_hash TEXT NOT NULL,
                        anchor INTEGER NOT NULL,
                        UNIQUE (source, source_id)
                    ) STRICT;
                    CREATE INDEX workout_by_start ON workout (start_at DESC, id DESC);
                    CREATE INDEX workout_by_anchor ON workout (anchor);

                    CREATE TABLE series (
                        workout_id TEXT PRIMARY KEY NOT NULL REFERENCES workout(id) ON DELETE CASCADE,
                        route BLOB NOT NULL,
                        heart_rate BLOB NOT NULL
                    ) STRICT;

                    CREATE TABLE job (
                        id INTEGER PRIMARY KEY,
                        workout_id TEXT NOT NULL REFERENCES workout(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        theme TEXT NOT NULL,
                        scale INTEGER NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('pending', 'generated', 'failed-no-retry')),
                        priority INTEGER NOT NULL DEFAULT 0,
                        reason TEXT,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        cache_key TEXT,
                        lease_id INTEGER,
                        leased_to TEXT,
                        not_before REAL,
                        updated_at REAL NOT NULL,
                        anchor INTEGER NOT NULL,
                        UNIQUE (workout_id, kind, theme, scale)
                    ) STRICT;
                    CREATE INDEX job_ready ON job (priority DESC, id) WHERE status = 'pending' AND lease_id IS NULL;
                    CREATE INDEX job_lease ON job (lease_id) WHERE lease_id IS NOT NULL;
                    CREATE INDEX job_by_anchor ON job (anchor);

                    CREATE TABLE deleted_workout (
                        id TEXT PRIMARY KEY NOT NULL,
                        anchor INTEGER NOT NULL
                    ) STRICT;
                    """)
        }
        migrator.registerMigration("v2: lease deadlines") { db in
            try db.execute(
                sql: """
                    ALTER TABLE job ADD COLUMN lease_deadline REAL;
                    CREATE INDEX job_lease_deadline ON job (lease_deadline) WHERE lease_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v3: leases in memory") { db in
            // The job table is rebuilt (SQLite cannot drop indexed columns or change a CHECK in
            // place):
            // - leases live in the coordinator's memory (LeaseTable), so their columns and indexes go;
            // - the status CHECK is written with `=` instead of `IN (...)`, for which SQLite builds
            //   a temporary table on every UPDATE of a job;
            // - the queue index covers everything the search for ready jobs reads (`status` too:
            //   SQLite does not count a partial index's condition as covering the column).
            try db.execute(
                sql: """
                    CREATE TABLE job_v3 (
                        id INTEGER PRIMARY KEY,
                        workout_id TEXT NOT NULL REFERENCES workout(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        theme TEXT NOT NULL,
                        scale INTEGER NOT NULL,
                        status TEXT NOT NULL CHECK (status = 'pending' OR status = 'generated' OR status = 'failed-no-retry'),
                        priority INTEGER NOT NULL DEFAULT 0,
                        reason TEXT,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        cache_key TEXT,
                        not_before REAL,
                        updated_at REAL NOT NULL,
                        anchor INTEGER NOT NULL,
                        UNIQUE (workout_id, kind, theme, scale)
                    ) STRICT;
                    INSERT INTO job_v3 (id, workout_id, kind, theme, scale, status, priority, reason, attempts, cache_key, not_before, updated_at, anchor)
                        SELECT id, workout_id, kind, theme, scale, status, priority, reason, attempts, cache_key, not_before, updated_at, anchor
                        FROM job ORDER BY id;
                    DROP TABLE job;
                    ALTER TABLE job_v3 RENAME TO job;
                    CREATE INDEX job_by_anchor ON job (anchor);
                    CREATE INDEX job_queue ON job (priority DESC, id, not_before, status) WHERE status = 'pending';
                    """)
        }
        migrator.registerMigration("v4: map coverage") { db in
            // How much of a generated picture the basemap covered: 'full', 'partial' or 'none'
            // (the plain background); NULL for pictures drawn before maps existed.
            try db.execute(sql: "ALTER TABLE job ADD COLUMN map TEXT")
        }
        migrator.registerMigration("v5: workout files and identity") { db in
            // Every workout remembers the file its stored copy was read from (NULL for workouts
            // imported before), the device's own summary figures and where they came from, and
            // its heart-rate sample count (for the richer-copy rule and heatmaps; filled in from
            // the stored series here). Columns are only added: nothing stored changes.
            try db.execute(
                sql: """
                    ALTER TABLE workout ADD COLUMN file_name TEXT;
                    ALTER TABLE workout ADD COLUMN file_size INTEGER;
                    ALTER TABLE workout ADD COLUMN file_sha256 TEXT;
                    ALTER TABLE workout ADD COLUMN file_format TEXT;
                    ALTER TABLE workout ADD COLUMN reader_version INTEGER;
                    ALTER TABLE workout ADD COLUMN position_in_file INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE workout ADD COLUMN original_kept INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE workout ADD COLUMN calories REAL;
                    ALTER TABLE workout ADD COLUMN device_source TEXT;
                    ALTER TABLE workout ADD COLUMN device_figures TEXT;
                    ALTER TABLE workout ADD COLUMN hr_samples INTEGER NOT NULL DEFAULT 0;
                    UPDATE workout SET hr_samples = coalesce(
                        (SELECT max(0, (length(s.heart_rate) - 8) / 10) FROM series s WHERE s.workout_id = workout.id), 0);
                    CREATE INDEX workout_by_file ON workout (file_sha256) WHERE file_sha256 IS NOT NULL;

                    -- Heatmaps asked for a workout without heart rate: no job (it could only fail),
                    -- but remembered, so that a re-import bringing heart rate queues them.
                    CREATE TABLE heatmap_wanted (
                        workout_id TEXT NOT NULL REFERENCES workout(id) ON DELETE CASCADE,
                        theme TEXT NOT NULL,
                        scale INTEGER NOT NULL,
                        priority INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (workout_id, theme, scale)
                    ) STRICT, WITHOUT ROWID;
                    """)
            // Heatmap jobs of workouts without heart rate could never succeed: they become wishes
            // (above), so that they stop counting as failures.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO heatmap_wanted (workout_id, theme, scale, priority)
                        SELECT j.workout_id, j.theme, j.scale, j.priority FROM job j JOIN workout w ON w.id = j.workout_id
                        WHERE j.kind = 'heatmap' AND w.hr_samples = 0;
                    DELETE FROM job WHERE kind = 'heatmap' AND workout_id IN (SELECT id FROM workout WHERE hr_samples = 0);
                    """)
        }
        migrator.registerMigration("v6: failure codes and deferrals") { db in
            // reason_code: the stable code of a failure (FailureCode), grouped and selected by;
            // reason stays the detail for people. deferrals: how many times a job was put off for
            // a failure of a worker's surroundings (a full cache), which sets its back-off without
            // counting an attempt. Codes of earlier failures are worked out from their reasons.
            try db.execute(
                sql: """
                    ALTER TABLE job ADD COLUMN reason_code TEXT;
                    ALTER TABLE job ADD COLUMN deferrals INTEGER NOT NULL DEFAULT 0;
                    """)
            let reasons = try String.fetchAll(db, sql: "SELECT DISTINCT reason FROM job WHERE reason IS NOT NULL")
            let update = try db.makeStatement(sql: "UPDATE job SET reason_code = ? WHERE reason = ?")
            for reason in reasons {
                try update.execute(arguments: [ReasonsBeforeCodes.code(ofReason: reason).rawValue, reason])
            }
        }
        migrator.registerMigration("v7: owners") { db in
            // Every workout belongs to an owner, and the owner is part of its identity: the unique
            // key becomes (owner, source, source id), which SQLite can only change by rebuilding
            // the table (foreign keys are off during migrations, so the series, jobs and wishes
            // that refer to it stay as they are). Workouts already stored get the default owner
            // and keep their ids.
            try db.execute(
                sql: """
                    CREATE TABLE workout_v7 (
                        id TEXT PRIMARY KEY NOT NULL,
                        owner TEXT NOT NULL,
                        source TEXT NOT NULL,
                        source_id TEXT NOT NULL,
                        activity TEXT NOT NULL,
                        name TEXT,
                        start_at REAL,
                        end_at REAL,
                        tz_offset INTEGER,
                        distance REAL NOT NULL,
                        duration REAL,
                        elevation_gain REAL,
                        hr_avg REAL,
                        hr_max REAL,
                        point_count INTEGER NOT NULL,
                        route_version INTEGER NOT NULL,
                        route_hash TEXT NOT NULL,
                        hr_hash TEXT NOT NULL,
                        anchor INTEGER NOT NULL,
                        file_name TEXT,
                        file_size INTEGER,
                        file_sha256 TEXT,
                        file_format TEXT,
                        reader_version INTEGER,
                        position_in_file INTEGER NOT NULL DEFAULT 0,
                        original_kept INTEGER NOT NULL DEFAULT 0,
                        calories REAL,
                        device_source TEXT,
                        device_figures TEXT,
                        hr_samples INTEGER NOT NULL DEFAULT 0,
                        UNIQUE (owner, source, source_id)
                    ) STRICT;
                    INSERT INTO workout_v7 (
                        id, owner, source, source_id, activity, name, start_at, end_at, tz_offset, distance, duration, elevation_gain,
                        hr_avg, hr_max, point_count, route_version, route_hash, hr_hash, anchor, file_name, file_size, file_sha256,
                        file_format, reader_version, position_in_file, original_kept, calories, device_source, device_figures, hr_samples)
                    SELECT
                        id, :owner, source, source_id, activity, name, start_at, end_at, tz_offset, distance, duration, elevation_gain,
                        hr_avg, hr_max, point_count, route_version, route_hash, hr_hash, anchor, file_name, file_size, file_sha256,
                        file_format, reader_version, position_in_file, original_kept, calories, device_source, device_figures, hr_samples
                    FROM workout ORDER BY id;
                    DROP TABLE workout;
                    ALTER TABLE workout_v7 RENAME TO workout;
                    -- The feed's order (undated workouts last) per owner and over all owners, the
                    -- changes per owner, and files as before.
                    CREATE INDEX workout_feed ON workout (owner, coalesce(start_at, -1e18) DESC, id DESC);
                    CREATE INDEX workout_feed_all ON workout (coalesce(start_at, -1e18) DESC, id DESC);
                    -- Duplicates are looked for among one owner's workouts that start within a minute.
                    CREATE INDEX workout_by_owner_start ON workout (owner, start_at);
                    CREATE INDEX workout_by_anchor ON workout (anchor);
                    CREATE INDEX workout_by_owner_anchor ON workout (owner, anchor);
                    CREATE INDEX workout_by_file ON workout (file_sha256) WHERE file_sha256 IS NOT NULL;

                    -- A deletion is reported to the owner whose workout it was.
                    ALTER TABLE deleted_workout ADD COLUMN owner TEXT;
                    UPDATE deleted_workout SET owner = :owner;
                    CREATE INDEX deleted_by_owner_anchor ON deleted_workout (owner, anchor);
                    CREATE INDEX deleted_by_anchor ON deleted_workout (anchor);

                    -- A picture's by-content name (keys/…) goes when no job refers to its key any more.
                    CREATE INDEX job_by_cache_key ON job (cache_key) WHERE cache_key IS NOT NULL;
                    """, arguments: ["owner": defaultOwner])
        }
        migrator.registerMigration("v8: privacy zones") { db in
            // An owner's privacy zones (docs/privacy.md): pictures hide the route around them.
            try db.execute(
                sql: """
                    CREATE TABLE privacy_zone (
                        id INTEGER PRIMARY KEY,
                        owner TEXT NOT NULL,
                        latitude REAL NOT NULL,
                        longitude REAL NOT NULL,
                        radius REAL NOT NULL,
                        created_at REAL NOT NULL
                    ) STRICT;
                    CREATE INDEX privacy_zone_by_owner ON privacy_zone (owner, id);
                    """)
        }
        migrator.registerMigration("v9: owner settings") { db in
            // An owner's settings (docs/settings.md): heart-rate zones from a maximum or as bounds
            // (never both), units, time zone, first weekday; a row only while something is set.
            try db.execute(
                sql: """
                    CREATE TABLE owner_settings (
                        owner TEXT PRIMARY KEY NOT NULL,
                        hr_maximum REAL,
                        hr_bounds TEXT,
                        units TEXT,
                        time_zone TEXT,
                        first_weekday INTEGER,
                        updated_at REAL NOT NULL,
                        CHECK (hr_maximum IS NULL OR hr_bounds IS NULL)
                    ) STRICT;
                    """)
        }
        migrator.registerMigration("v10: fair share and the queue at scale") { db in
            // Issue 23, findings 6 and 10.
            // - Every job carries its workout's owner (which never changes: it is part of the
            //   workout's identity), so that leasing can take owners in turn from an index
            //   instead of joining the workouts of every queued job (IndexTransaction+Leasing).
            // - job_fair replaces job_queue: the ready jobs by priority, then owner, then age,
            //   covering what the search reads (status too, as job_queue did).
            // - job_pending_age: the oldest pending job (the gauge every scrape reads) is the
            //   first entry of an index instead of a scan of every pending job; job_backing_off:
            //   the pending jobs waiting out a back-off, which the ready count leaves out.
            // - job_count and job_count_by_owner: the jobs per kind, theme, scale and status (and
            //   owner), kept by triggers in the transaction that changes the jobs, so that STATUS,
            //   the job gauges and `enqueue --wait` read a few rows instead of counting every job.
            try db.execute(
                sql: """
                    ALTER TABLE job ADD COLUMN owner TEXT NOT NULL DEFAULT '';
                    UPDATE job SET owner = (SELECT w.owner FROM workout w WHERE w.id = job.workout_id);
                    DROP INDEX job_queue;
                    CREATE INDEX job_fair ON job (priority DESC, owner, id, not_before, status) WHERE status = 'pending';
                    CREATE INDEX job_pending_age ON job (updated_at) WHERE status = 'pending';
                    CREATE INDEX job_backing_off ON job (not_before) WHERE status = 'pending' AND not_before IS NOT NULL;

                    CREATE TABLE job_count (
                        kind TEXT NOT NULL, theme TEXT NOT NULL, scale INTEGER NOT NULL, status TEXT NOT NULL, jobs INTEGER NOT NULL,
                        PRIMARY KEY (kind, theme, scale, status)
                    ) STRICT, WITHOUT ROWID;
                    CREATE TABLE job_count_by_owner (
                        owner TEXT NOT NULL, kind TEXT NOT NULL, theme TEXT NOT NULL, scale INTEGER NOT NULL, status TEXT NOT NULL,
                        jobs INTEGER NOT NULL,
                        PRIMARY KEY (owner, kind, theme, scale, status)
                    ) STRICT, WITHOUT ROWID;
                    INSERT INTO job_count SELECT kind, theme, scale, status, count(*) FROM job GROUP BY 1, 2, 3, 4;
                    INSERT INTO job_count_by_owner SELECT owner, kind, theme, scale, status, count(*) FROM job GROUP BY 1, 2, 3, 4, 5;
                    CREATE TRIGGER job_counted AFTER INSERT ON job BEGIN
                        INSERT INTO job_count VALUES (new.kind, new.theme, new.scale, new.status, 1)
                            ON CONFLICT (kind, theme, scale, status) DO UPDATE SET jobs = jobs + 1;
                        INSERT INTO job_count_by_owner VALUES (new.owner, new.kind, new.theme, new.scale, new.status, 1)
                            ON CONFLICT (owner, kind, theme, scale, status) DO UPDATE SET jobs = jobs + 1;
                    END;
                    CREATE TRIGGER job_uncounted AFTER DELETE ON job BEGIN
                        UPDATE job_count SET jobs = jobs - 1
                            WHERE kind = old.kind AND theme = old.theme AND scale = old.scale AND status = old.status;
                        UPDATE job_count_by_owner SET jobs = jobs - 1
                            WHERE owner = old.owner AND kind = old.kind AND theme = old.theme AND scale = old.scale AND status = old.status;
                    END;
                    CREATE TRIGGER job_recounted AFTER UPDATE OF status, kind, theme, scale, owner ON job
                    WHEN old.status IS NOT new.status OR old.kind IS NOT new.kind OR old.theme IS NOT new.theme OR old.scale IS NOT new.scale
                        OR old.owner IS NOT new.owner
                    BEGIN
                        UPDATE job_count SET jobs = jobs - 1
                            WHERE kind = old.kind AND theme = old.theme AND scale = old.scale AND status = old.status;
                        UPDATE job_count_by_owner SET jobs = jobs - 1
                            WHERE owner = old.owner AND kind = old.kind AND theme = old.theme AND scale = old.scale AND status = old.status;
                        INSERT INTO job_count VALUES (new.kind, new.theme, new.scale, new.status, 1)
                            ON CONFLICT (kind, theme, scale, status) DO UPDATE SET jobs = jobs + 1;
                        INSERT INTO job_count_by_owner VALUES (new.owner, new.kind, new.theme, new.scale, new.status, 1)
                            ON CONFLICT (owner, kind, theme, scale, status) DO UPDATE SET jobs = jobs + 1;
                    END;
                    """)
        }
        migrator.registerMigration("v11: workout time zones") { db in
            // Issue 24, part 2: the IANA zone a workout took place in (tz_name, e.g. Europe/Berlin),
            // and where it and tz_offset came from (tz_source: file, apple-health, position).
            // Rows stored before stay NULL until `workctl reimport` reads their files again.
            try db.execute(
                sql: """
                    ALTER TABLE workout ADD COLUMN tz_name TEXT;
                    ALTER TABLE workout ADD COLUMN tz_source TEXT;
                    """)
        }
        migrator.registerMigration("v12: withdrawn pictures") { db in
            // The cache keys of pictures an owner's privacy-zone change withdrew, so that their
            // old URLs answer 410 Gone rather than 404 (docs/privacy.md, "Withdrawn pictures").
            // Bounded per owner (IndexTransaction.maximumWithdrawnPerOwner), newest kept.
            try db.execute(
                sql: """
                    CREATE TABLE withdrawn_picture (
                        key TEXT PRIMARY KEY,
                        owner TEXT NOT NULL,
                        withdrawn_at REAL NOT NULL
                    ) STRICT, WITHOUT ROWID;
                    CREATE INDEX withdrawn_picture_by_owner ON withdrawn_picture (owner, withdrawn_at);
                    """)
        }
        registerSummaries(&migrator)
        registerPictureKindsMigration(&migrator)
        migrator.registerMigration("v15: zone ids never reused") { db in
            // An INTEGER PRIMARY KEY takes the highest id plus one: the last zone deleted, the next
            // one added got its id, and a stale `DELETE /v1/zones/{id}` removed it (docs/privacy.md,
            // "Zone ids"). AUTOINCREMENT keeps the highest id ever given in sqlite_sequence.
            try db.execute(
                sql: """
                    CREATE TABLE privacy_zone_v15 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        owner TEXT NOT NULL,
                        latitude REAL NOT NULL,
                        longitude REAL NOT NULL,
                        radius REAL NOT NULL,
                        created_at REAL NOT NULL
                    ) STRICT;
                    INSERT INTO privacy_zone_v15 (id, owner, latitude, longitude, radius, created_at)
                        SELECT id, owner, latitude, longitude, radius, created_at FROM privacy_zone;
                    DROP TABLE privacy_zone;
                    ALTER TABLE privacy_zone_v15 RENAME TO privacy_zone;
                    CREATE INDEX privacy_zone_by_owner ON privacy_zone (owner, id);
                    """)
        }
        migrator.registerMigration("v16: route boxes") { db in
            // Each workout's route box (RouteBounds), which says which of its owner's privacy
            // zones can change its pictures, so that a zone far away leaves their keys alone
            // (docs/privacy.md, "Which pictures a zone changes"). Filled here from the stored
            // routes; NULL for a route without a valid point.
            try db.execute(
                sql: """
                    ALTER TABLE workout ADD COLUMN route_south REAL;
                    ALTER TABLE workout ADD COLUMN route_west REAL;
                    ALTER TABLE workout ADD COLUMN route_north REAL;
                    ALTER TABLE workout ADD COLUMN route_east REAL;
                    """)
            let update = try db.makeStatement(sql: "UPDATE workout SET route_south = ?, route_west = ?, route_north = ?, route_east = ? WHERE id = ?")
            let routes = try Row.fetchCursor(db, sql: "SELECT workout_id, route FROM series")
            while let row = try routes.next() {
                let id: String = row[0]
                guard let route = row[1] as Data?, let bounds = RouteBounds(encodedRoute: route) else { continue }
                try update.execute(arguments: StatementArguments(bounds.stored + [id] as [any DatabaseValueConvertible]))
            }
        }
        migrator.registerMigration("v17: removals that wait") { db in
            // Removals the picture store refused (a bucket answering SlowDown), kept until they
            // are done (docs/operations.md, "Removals that wait"): a name (Removal's text) and
            // when it first failed.
            try db.execute(sql: "CREATE TABLE removal (name TEXT PRIMARY KEY NOT NULL, since REAL NOT NULL) WITHOUT ROWID")
        }
        migrator.registerMigration("v18: replies kept for idempotency keys") { db in
            // The reply to a change a client sent with an Idempotency-Key, by owner and key, kept a
            // day (docs/gateway.md, "Idempotency-Key"): a request sent again with the key is
            // answered with it instead of being carried out twice.
            try db.execute(
                sql: """
                    CREATE TABLE kept_reply (
                        owner TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, reply BLOB NOT NULL, at REAL NOT NULL,
                        PRIMARY KEY (owner, key)) WITHOUT ROWID;
                    CREATE INDEX kept_reply_at ON kept_reply (at);
                    """)
        }
        migrator.registerMigration("v19: start places") { db in
            // The populated place each workout started in (StartPlace, docs/places.md), which the
            // feed and `workctl show` give and a picture without a map carries. Filled here from
            // the stored routes; NULL for a route without a valid point or far from every place.
            try db.execute(sql: "ALTER TABLE workout ADD COLUMN place TEXT")
            let update = try db.makeStatement(sql: "UPDATE workout SET place = ? WHERE id = ?")
            let routes = try Row.fetchCursor(db, sql: "SELECT workout_id, route FROM series")
            while let row = try routes.next() {
                let id: String = row[0]
                guard let route = row[1] as Data?, let place = StartPlace.label(encodedRoute: route) else { continue }
                try update.execute(arguments: [place, id])
            }
        }
        migrator.registerMigration("v20: card figures") { db in
            // The figures an owner's share cards show, in order (OwnerSettings.cardFigures): their
            // names comma-separated, "" for none; NULL (unset) shows every one.
            try db.execute(sql: "ALTER TABLE owner_settings ADD COLUMN card_figures TEXT")
        }
        return migrator
    }

    /// The schema version names applied to this file, oldest first.
    public func appliedMigrations() throws(IndexError) -> [String] {
        do {
            // In the order they were registered (and applied): sorted as text, v10 would come
            // before v2.
            return try queue.read { db in
                let applied = try Self.migrator.appliedIdentifiers(db)
                return Self.migrator.migrations.filter { applied.contains($0) }
            }
        } catch {
            throw IndexError(.failed, "cannot read the schema version", cause: error)
        }
    }
}
