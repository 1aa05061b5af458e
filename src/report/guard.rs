//! What SQL a report connection may run: reading only. The connection is
//! opened read-only, which stops writes to the database itself but not
//! `VACUUM INTO` (a new file), `ATTACH`, temporary tables or PRAGMAs that
//! change the connection; SQLite's authorizer, set here, refuses all of
//! them while each statement is prepared, before anything runs, and
//! remembers what it refused so the error can say. Only a report's own
//! code may lift it, for the connection's temporary schema alone
//! ([`super::Database::in_temp`]: `lint -p` runs the hazard rules over a
//! subtree's paths there); never for SQL a user gave.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::Connection;

/// PRAGMAs that only report, and may take an argument naming what to
/// report on (a table, an index, a schema). Any other PRAGMA is refused
/// with an argument (it would change a setting) but allowed without one.
const REPORTING_PRAGMAS: &[&str] = &[
    "foreign_key_check",
    "foreign_key_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "quick_check",
    "table_info",
    "table_list",
    "table_xinfo",
];

/// PRAGMAs refused even without an argument: they change state or read
/// outside the database (`optimize` may write, `shrink_memory` acts).
const ACTING_PRAGMAS: &[&str] = &[
    "optimize",
    "shrink_memory",
    "wal_checkpoint",
    "incremental_vacuum",
];

/// Install the authorizer on `conn`; what it last refused goes to the
/// returned slot (taken by [`refused`]). While `temp` is set, anything
/// done to the connection's temporary schema is allowed too (creating,
/// filling and dropping its tables and views); the database itself stays
/// read-only.
pub fn install(conn: &Connection, temp: Arc<AtomicBool>) -> Arc<Mutex<Option<String>>> {
    let slot = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&slot);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        match verdict(&ctx.action) {
            Ok(()) => Authorization::Allow,
            Err(_) if ctx.database_name == Some("temp") && temp.load(Ordering::Relaxed) => {
                Authorization::Allow
            }
            Err(what) => {
                // The first refusal names the statement; SQLite may go on
                // asking about its parts.
                if let Ok(mut s) = seen.lock() {
                    s.get_or_insert(what);
                }
                Authorization::Deny
            }
        }
    }));
    slot
}

/// What the authorizer refused since the last call, if anything.
pub fn refused(slot: &Mutex<Option<String>>) -> Option<String> {
    slot.lock().ok().and_then(|mut s| s.take())
}

/// SQLite's tables of the schema itself: writing them is a schema change.
const SCHEMA_TABLES: &[&str] = &[
    "sqlite_master",
    "sqlite_temp_master",
    "sqlite_schema",
    "sqlite_temp_schema",
];

/// Whether `action` only reads; `Err` names it when it does more.
fn verdict(action: &AuthAction<'_>) -> Result<(), String> {
    match *action {
        AuthAction::Select
        | AuthAction::Read { .. }
        | AuthAction::Function { .. }
        | AuthAction::Recursive => Ok(()),
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let name = pragma_name.to_ascii_lowercase();
            let reports = REPORTING_PRAGMAS.contains(&name.as_str());
            let acts = ACTING_PRAGMAS.contains(&name.as_str());
            match pragma_value {
                _ if acts => Err(format!("PRAGMA {name}")),
                Some(v) if !reports => Err(format!("PRAGMA {name} = {v}")),
                _ => Ok(()),
            }
        }
        AuthAction::Attach { filename } => Err(format!("ATTACH of {filename:?}")),
        AuthAction::Detach { .. } => Err("DETACH".into()),
        AuthAction::Insert { table_name }
        | AuthAction::Update { table_name, .. }
        | AuthAction::Delete { table_name }
            if SCHEMA_TABLES.contains(&table_name) =>
        {
            Err("a schema change (CREATE, DROP or ALTER)".into())
        }
        AuthAction::Insert { table_name } => Err(format!("INSERT into {table_name}")),
        AuthAction::Update { table_name, .. } => Err(format!("UPDATE of {table_name}")),
        AuthAction::Delete { table_name } => Err(format!("DELETE from {table_name}")),
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
            Err("a transaction statement".into())
        }
        _ => Err(describe(action)),
    }
}

/// `CreateTempTable { .. }` → `CreateTempTable`: the kind of statement.
fn describe(action: &AuthAction<'_>) -> String {
    let debug = format!("{action:?}");
    let kind = debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or("this statement");
    match kind {
        "Unknown" => "this statement".into(),
        k => format!("{k} (not a read)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn try_sql(sql: &str) -> Result<(), String> {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (a)").unwrap();
        let slot = install(&conn, Arc::new(AtomicBool::new(false)));
        let verdict = match conn.prepare(sql) {
            Ok(_) => Ok(()),
            Err(e) => Err(refused(&slot).unwrap_or_else(|| e.to_string())),
        };
        verdict
    }

    #[test]
    fn reads_pass_and_everything_else_is_named() {
        for ok in [
            "SELECT a FROM t",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 3) SELECT i FROM n",
            "PRAGMA table_info(t)",
            "PRAGMA user_version",
            "SELECT * FROM pragma_table_info('t')",
            "SELECT count(*) FROM sqlite_schema",
        ] {
            assert_eq!(try_sql(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("INSERT INTO t VALUES (1)", "INSERT into t"),
            ("DELETE FROM t", "DELETE from t"),
            ("ATTACH '/tmp/x.db' AS x", "ATTACH"),
            ("CREATE TEMP TABLE x (a)", "a schema change"),
            ("DROP TABLE t", "a schema change"),
            ("ALTER TABLE t ADD COLUMN b", "AlterTable"),
            ("PRAGMA query_only = 0", "PRAGMA query_only = 0"),
            ("PRAGMA cache_size = 10", "PRAGMA cache_size"),
            ("BEGIN", "transaction"),
            ("PRAGMA optimize", "PRAGMA optimize"),
        ] {
            let got = try_sql(bad).unwrap_err();
            assert!(got.contains(says), "{bad}: {got}");
        }
    }

    #[test]
    fn the_temporary_schema_only_while_lifted() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (a)").unwrap();
        let temp = Arc::new(AtomicBool::new(false));
        let slot = install(&conn, Arc::clone(&temp));
        let temp_ddl = "CREATE TEMP TABLE x AS SELECT a FROM t";
        assert!(conn.execute_batch(temp_ddl).is_err());
        assert!(refused(&slot).unwrap().contains("a schema change"));
        temp.store(true, Ordering::Relaxed);
        conn.execute_batch(temp_ddl).unwrap();
        conn.execute_batch("CREATE TEMP VIEW v AS SELECT a FROM x; INSERT INTO x VALUES (1)")
            .unwrap();
        // Lifted for the temporary schema only.
        for bad in [
            "INSERT INTO t VALUES (1)",
            "CREATE TABLE main.u (a)",
            "DROP TABLE t",
        ] {
            assert!(conn.execute_batch(bad).is_err(), "{bad}");
        }
        conn.execute_batch("DROP VIEW v; DROP TABLE x").unwrap();
        temp.store(false, Ordering::Relaxed);
        assert!(conn
            .execute_batch("CREATE TEMP VIEW w AS SELECT 1")
            .is_err());
    }
}
