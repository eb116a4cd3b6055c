/// The versioned schema. Migrations run in order, each once, inside one transaction that holds an
/// advisory lock, so several instances starting at once apply them exactly once.
///
/// Applied migrations are never edited: a change to the schema or to `slot_reserve` is a new
/// migration, since deployed databases already ran the earlier ones.
///
/// Each migration's SQL is a file, `Migrations/vN.sql`, compiled into the library
/// (`.embedInCode`, Package.swift): readable by a DBA, runnable by other tools, and read in order by
/// `Scripts/pg-bench/run.sh`, so the benchmark runs exactly the schema the store installs.
enum Schema {
    struct Migration: Sendable {
        let version: Int32
        let name: String
        let sql: String
    }

    static let migrations: [Migration] = [
        Migration(version: 1, name: "bookings, availability, quotas, slot_reserve", sql: sql(PackageResources.v1_sql)),
        Migration(
            version: 2, name: "narrower active-slot index, slot_reserve counts instead of user_quota",
            sql: sql(PackageResources.v2_sql)),
        Migration(
            version: 3, name: "holds, reschedule request ids, any-socket booking", sql: sql(PackageResources.v3_sql)),
        Migration(version: 4, name: "user_upcoming in PL/pgSQL (plans cached)", sql: sql(PackageResources.v4_sql)),
        Migration(
            version: 5, name: "check-ins, no-show limit in the functions that take a slot",
            sql: sql(PackageResources.v5_sql)),
        Migration(version: 6, name: "drop user_quota, unused since migration 2", sql: sql(PackageResources.v6_sql)),
        Migration(
            version: 7, name: "slot_take: one take-a-slot function for reserve, hold and any socket",
            sql: sql(PackageResources.v7_sql)),
        Migration(
            version: 8, name: "reminders due: an index on when each active booking's reminder fires",
            sql: sql(PackageResources.v8_sql)),
        Migration(
            version: 9, name: "a user's cancelled bookings: an index to read them a page at a time",
            sql: sql(PackageResources.v9_sql)),
        Migration(
            version: 10, name: "runtime roles: the grants every migration gives again",
            sql: sql(PackageResources.v10_sql)),
        Migration(
            version: 11, name: "catalog changes: the catalog record, retired flags, a guard on bookings and holds",
            sql: sql(PackageResources.v11_sql)),
        Migration(
            version: 12, name: "the policy's check-in columns written by the store, without defaults of their own",
            sql: sql(PackageResources.v12_sql)),
        Migration(
            version: 13, name: "a repeated reservation compared with the slot it asked for, not where it moved",
            sql: sql(PackageResources.v13_sql)),
        Migration(
            version: 14,
            name: "check-out: fulfilled bookings and checked_out_at; check-in with the socket's access code",
            sql: sql(PackageResources.v14_sql)),
        Migration(
            version: 15, name: "slot_reserve_committed: a reservation in one round trip, committed before its answer",
            sql: sql(PackageResources.v15_sql)),
    ]

    /// A migration file's text.
    static func sql(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static let bootstrap = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY,
            name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
}
