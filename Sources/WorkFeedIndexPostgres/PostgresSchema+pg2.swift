// Migration pg2: the kept job counts' update trigger returns at once when a statement changed
// nothing that is counted (docs/postgres-index.md, "Hot rows"). Most updates of a job row are of
// that kind: a lease taken, renewed or ended, a lease's key recorded; run through the whole
// count (two aggregates over the transition tables, a jsonb, an upsert) they cost 0.3 ms each,
// the largest part of a job's dispatch (docs/benchmarks.md, "Dispatch on PostgreSQL").
// Transition tables cannot go with a column list (`AFTER UPDATE OF status …`), so the check is
// the function's first statement.

extension PostgresSchema {
    static let pg2: [String] = [
        """
        CREATE OR REPLACE FUNCTION job_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM old_jobs o JOIN new_jobs n USING (id)
                WHERE (o.owner, o.kind, o.theme, o.scale, o.status) IS DISTINCT FROM (n.owner, n.kind, n.theme, n.scale, n.status)
            ) THEN
                RETURN NULL;
            END IF;
            PERFORM job_count_apply((SELECT jsonb_agg(x) FROM (
                SELECT owner, kind, theme, scale, status, sum(n) AS n FROM (
                    SELECT owner, kind, theme, scale, status, -1 AS n FROM old_jobs
                    UNION ALL SELECT owner, kind, theme, scale, status, 1 FROM new_jobs) c
                GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0) x));
            RETURN NULL; END $$
        """
    ]
}
