// Migration pg4: a lease's key is recorded without writing an index entry (docs/postgres-index.md,
// "Hot rows"). A job's row had three versions a picture, each with an entry in every one of the
// job table's ten indexes: the claim, the lease's key recorded, the report. The key is in no index
// now (the few hundred leased rows are found by `job_lease`, and the key compared there), and the
// table's pages keep room for the new version (fill factor 80): recording the key is a HOT update.

extension PostgresSchema {
    static let pg4: [String] = [
        """
        DROP INDEX job_lease_key
        """,
        """
        ALTER TABLE job SET (fillfactor = 80)
        """,
    ]
}
