// Migration pg3: the kept job counts are added by a PL/pgSQL function over arrays instead of an SQL
// function over jsonb (docs/postgres-index.md, "Hot rows"). PostgreSQL 15 plans an SQL function's
// statements again at every call, and building and reading the jsonb cost as much: a turn's store
// of two pictures spent 0.6 to 0.9 ms in the update trigger, 0.3 to 0.5 ms now (PL/pgSQL keeps its
// statements' plans for the connection's life).

extension PostgresSchema {
    static let pg3: [String] = [
        """
        -- Changes summed per key, applied in key order (two statements over the same rows take their locks in the same
        -- order: no deadlock), into this connection's stripe (connections on different stripes never wait).
        CREATE FUNCTION job_count_add(owners text[], kinds text[], themes text[], scales integer[], statuses text[], counts bigint[])
        RETURNS void LANGUAGE plpgsql AS $$ BEGIN
            WITH d AS (SELECT * FROM unnest(owners, kinds, themes, scales, statuses, counts) AS x(owner, kind, theme, scale, status, n)),
            totals AS (
                INSERT INTO job_count AS c (kind, theme, scale, status, stripe, jobs)
                SELECT kind, theme, scale, status, pg_backend_pid() % 64, sum(n) FROM d GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
                ON CONFLICT (kind, theme, scale, status, stripe) DO UPDATE SET jobs = c.jobs + excluded.jobs)
            INSERT INTO job_count_by_owner AS c (owner, kind, theme, scale, status, stripe, jobs)
            SELECT owner, kind, theme, scale, status, pg_backend_pid() % 64, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
            ON CONFLICT (owner, kind, theme, scale, status, stripe) DO UPDATE SET jobs = c.jobs + excluded.jobs;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION job_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            PERFORM job_count_add(array_agg(owner), array_agg(kind), array_agg(theme), array_agg(scale), array_agg(status), array_agg(1::bigint))
            FROM new_jobs;
            RETURN NULL; END $$
        """,
        """
        CREATE OR REPLACE FUNCTION job_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            PERFORM job_count_add(array_agg(owner), array_agg(kind), array_agg(theme), array_agg(scale), array_agg(status), array_agg(-1::bigint))
            FROM old_jobs;
            RETURN NULL; END $$
        """,
        """
        CREATE OR REPLACE FUNCTION job_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM old_jobs o JOIN new_jobs n USING (id)
                WHERE (o.owner, o.kind, o.theme, o.scale, o.status) IS DISTINCT FROM (n.owner, n.kind, n.theme, n.scale, n.status)
            ) THEN
                RETURN NULL;
            END IF;
            PERFORM job_count_add(array_agg(owner), array_agg(kind), array_agg(theme), array_agg(scale), array_agg(status), array_agg(n))
            FROM (SELECT owner, kind, theme, scale, status, -1::bigint AS n FROM old_jobs
                  UNION ALL SELECT owner, kind, theme, scale, status, 1 FROM new_jobs) c;
            RETURN NULL; END $$
        """,
        """
        DROP FUNCTION job_count_apply(jsonb)
        """,
    ]
}
