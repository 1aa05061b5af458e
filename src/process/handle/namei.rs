//! NAMI: a looked-up path made absolute against the cwd or an `*at` call's
//! directory fd, and the core file a dying process looks up.

use crate::process::path::resolve;
use crate::process::rows::{Access, End, NameiRow, Resolution, Sink};
use crate::process::state::{HeldLookup, Proc, TraceState, HELD_LOOKUPS};
use crate::process::syscall::{access, dirfd_arg, Effect, AT_FDCWD};
use crate::record::Record;

impl TraceState {
    pub(super) fn on_namei<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        raw: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let th = p.threads.get_mut(&key).expect("thread exists");
        let mut call = th.pending.last_mut();
        // A NAMI no call of its thread made is the core file a dying
        // process looks up (coredump(): OpenBSD 5.9 writes `PSIG SIGABRT`,
        // then `NAMI "pg.core"`, same pid). It belongs to this lifetime.
        let coredump = call.is_none();
        let seq = call.as_ref().map_or(0, |c| c.namei);
        let dirfd = call.as_ref().and_then(|c| {
            c.name
                .and_then(|n| dirfd_arg(n, seq))
                .and_then(|i| c.int_arg(i))
        });
        let (base, how): (Option<&[u8]>, Resolution) = if raw.first() == Some(&b'/') {
            (None, Resolution::Absolute)
        } else {
            match dirfd {
                Some(d) if d != AT_FDCWD => match i32::try_from(d).ok().and_then(|f| p.fds.get(&f))
                {
                    Some(dir) => (Some(dir), Resolution::Dirfd),
                    None => (None, Resolution::Unknown),
                },
                _ => match &p.cwd {
                    Some(cwd) => (Some(cwd), Resolution::Cwd),
                    None => (None, Resolution::Unknown),
                },
            }
        };
        let resolved = resolve(base, raw);
        let call_id = call.as_ref().map(|c| c.call_id);
        let exec_id = call.as_ref().map_or(p.image_id, |c| c.image_id);
        let absolute = how != Resolution::Unknown;
        let access = match &call {
            Some(c) => access(c.name, seq, c.args(), self.fd_effects.open),
            None => Access::Create,
        };
        p.row.lookups += 1;
        if !absolute {
            p.row.unresolved_lookups += 1;
            self.totals.unresolved += 1;
        }
        self.totals.namei += 1;
        match call.as_deref_mut() {
            // Its call's RET, still to come, says whether it succeeded: the
            // row waits in the call ([`TraceState::finish_call`] writes it).
            Some(c) if c.held.len() < HELD_LOOKUPS => c.held.push(HeldLookup {
                ts: rec.ts,
                offset: rec.offset,
                comm: rec.comm.to_vec(),
                path: raw.to_vec(),
                resolved: resolved.clone(),
                resolution: how,
                access,
            }),
            _ => {
                let row = NameiRow {
                    id: TraceState::next(&mut self.ids.namei),
                    call_id,
                    process_id: p.row.id,
                    seq: seq as i64,
                    ts: rec.ts,
                    offset: rec.offset,
                    comm: &rec.comm,
                    exec_id,
                    coredump,
                    path: raw,
                    resolved: &resolved,
                    resolution: how,
                    access,
                    // A core file is written, so its lookup succeeded; past
                    // the held lookups, the call's outcome is not known yet.
                    success: coredump.then_some(true),
                };
                sink.namei(&row)?;
            }
        }
        if let Some(c) = call {
            c.namei += 1;
            if seq == 0
                && matches!(
                    c.effect,
                    Effect::Exec | Effect::Spawn | Effect::Chdir | Effect::Open
                )
            {
                c.first_path = Some((raw.to_vec(), resolved.clone(), absolute));
            }
            if absolute {
                c.lookups.push(self.file_key(&resolved));
            }
        } else {
            p.end(End::Core, rec.ts);
            if absolute {
                p.files.insert(self.file_key(&resolved));
            }
        }
        Ok(())
    }
}
