//! `kt2sql deps`: whether the trace looked up a file asked about, and
//! what the make depfile (`--format make`) of each file lists, from the
//! rows of `queries/deps.sql`: the dependencies that
//! [`crate::build::deps::in_depfile`] takes. [`super::depfile`] writes the
//! rules.

use super::{run, Cell, Database};
use crate::build::deps::in_depfile;
use crate::schema::sql_err;
use crate::Error;

/// Whether the trace looked up `path` (a row of table `path` names it).
pub fn looked_up(db: &Database, path: &str) -> Result<bool, Error> {
    db.query_row(
        "SELECT EXISTS (SELECT 1 FROM path WHERE path = ?1)",
        [path],
        |r| r.get(0),
    )
    .map_err(sql_err("reading table path".into()))
}

/// The prerequisites of each file's make rule, in the order of `paths`
/// (as the trace names them): its dependencies that
/// [`in_depfile`] takes, from `queries/deps.sql` run with `params`
/// (`files`, and `trace` when given). [`depfile::write_rule`] writes them.
pub fn depfile_prerequisites(
    db: &Database,
    paths: &[String],
    params: &[(&str, Cell)],
) -> Result<Vec<Vec<Vec<u8>>>, Error> {
    let rows = run(db, "deps", params)?;
    let (f, k, p) = (rows.col("file"), rows.col("kind"), rows.col("path"));
    let of = |path: &String| {
        rows.rows
            .iter()
            .filter(|r| r[f].to_bytes() == path.as_bytes())
            .filter(|r| in_depfile(&r[k].display()))
            .filter_map(|r| r[p].bytes().map(<[u8]>::to_vec))
            .collect()
    };
    Ok(paths.iter().map(of).collect())
}
