//! Comparing kt2sql's answers with ktcompose's truth: lifetime keys, the
//! `-v` lists by image, lost records, and diffs that show only what differs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

/// Equal JSON objects, or a panic naming only the keys that differ.
pub fn same(got: &Value, want: &Value, ctx: &str) {
    if got == want {
        return;
    }
    let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
    let mut diff = Vec::new();
    for k in g.keys().chain(w.keys()).collect::<BTreeSet<_>>() {
        if g.get(k) != w.get(k) {
            diff.push(format!("{k}: got {:?}, want {:?}", g.get(k), w.get(k)));
        }
    }
    panic!("{ctx}:\n{}", diff.join("\n"));
}

/// The truth's `-v` lists name the NAMI record's comm (its rule R10);
/// kt2sql names the image that made the call, as ptrace.py does. The two
/// differ only where a lookup is recorded under another name than its
/// call's image: OpenBSD's exec writes its ld.so lookup after setting the
/// new comm. Such entries are mapped to the name of the image that called
/// execve (the comm before the exec of that name).
pub fn by_image(dialect: &str, v: &Value, t: &Value) -> Value {
    if !dialect.starts_with("openbsd") {
        return v.clone();
    }
    let mut before: BTreeMap<(i64, String), String> = BTreeMap::new();
    for p in t["processes"].as_array().unwrap() {
        let pid = p["pid"].as_i64().unwrap();
        let mut prev = p["first_comm"].as_str().unwrap().to_string();
        for e in p["execs"].as_array().unwrap() {
            let comm = e["comm"].as_str().unwrap().to_string();
            before.insert((pid, comm.clone()), prev);
            prev = comm;
        }
    }
    let map = |path: &str, ents: &Value| -> Value {
        let mut out: BTreeSet<(i64, String, String)> = BTreeSet::new();
        for e in ents.as_array().unwrap() {
            let (sc, comm, pid) = (
                e[0].as_str().unwrap(),
                e[1].as_str().unwrap(),
                e[2].as_i64().unwrap(),
            );
            let comm = match before.get(&(pid, comm.to_string())) {
                Some(old) if sc == "execve" && path == "/usr/libexec/ld.so" => old.clone(),
                _ => comm.to_string(),
            };
            out.insert((pid, sc.to_string(), comm));
        }
        Value::Array(
            out.into_iter()
                .map(|(pid, sc, comm)| json!([sc, comm, pid]))
                .collect(),
        )
    };
    Value::Object(
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, e)| (k.clone(), map(k, e)))
            .collect(),
    )
}

/// The lifetime key of a truth entry: its `key`, or `<pid>.1` in a truth
/// written without kernel-behaviour flags (no pid is reused there).
pub fn key_of(entry: &Value, key: &str, pid: &str) -> Option<String> {
    match &entry[key] {
        Value::String(k) => Some(k.clone()),
        _ => entry[pid].as_i64().map(|p| format!("{p}.1")),
    }
}

/// Whether records the truth lists as lost belong to a subtree: its lists
/// are then the real ones, not what the file shows.
pub fn lost_inside(t: &Value, sub: &Value) -> bool {
    t["dropped_records"].as_array().is_some_and(|d| {
        let keys = &sub["keys"];
        d.iter()
            .any(|r| keys.as_array().is_some_and(|k| k.contains(&r["key"])))
    })
}

/// The `files` lists kt2sql's model reads from the written records: the
/// truth's `files_visible` (a lost NAMI is in no list) where records were
/// lost, but with the real outcome of an exec whose RET was lost. Every
/// dialect's kernel shows the new image before the thread's next call
/// (FreeBSD's PROCCTOR, NetBSD's EMUL, the new comm), the composer loses
/// only such RETs, and the model infers them (`exec-inferred`): the exec
/// succeeded, so its lookups are successful, as in the real `files`.
pub fn files_seen(t: &Value) -> Value {
    let Some(visible) = t.get("files_visible") else {
        return t["files"].clone();
    };
    let mut seen = visible.clone();
    let real = t["files"]["n_v"].as_object().unwrap();
    let mut n = crate::util::strings(&seen["n"]);
    let n_v = seen["n_v"].as_object_mut().unwrap();
    for (path, ents) in real {
        let execs = ents.as_array().unwrap().iter().filter(|e| e[0] == "execve");
        for e in execs {
            let have = n_v.entry(path.clone()).or_insert_with(|| json!([]));
            if !have.as_array().unwrap().contains(e) {
                have.as_array_mut().unwrap().push(e.clone());
                n.insert(path.clone());
            }
        }
    }
    // R10's order: (pid, syscall name, comm).
    for ents in n_v.values_mut() {
        let key = |e: &Value| (e[2].as_i64(), e[0].to_string(), e[1].to_string());
        ents.as_array_mut().unwrap().sort_by_key(key);
    }
    seen["n"] = json!(n);
    seen
}
