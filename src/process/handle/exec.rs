//! Exec rows: a process's inherited image, each exec attempt, and the Mac
//! OS X vfork exec whose command name is known only from the next record.

use crate::process::rows::{ExecRow, Sink};
use crate::process::state::{AwaitingExec, Pending, Proc, TraceState};

impl TraceState {
    /// The exec row of call `c` of `p`, which took effect at `ts`; a
    /// successful one starts a new image named `comm` (None: the name is
    /// not known yet, and the row waits for the next record of `p`). The
    /// image's calls are those after the record that returned the exec
    /// (`returned`), else those after the exec's CALL: `process_image`
    /// draws the same line by offsets, and call ids follow a process's
    /// records in file order.
    #[allow(clippy::too_many_arguments)]
    pub fn exec_row<S: Sink>(
        &mut self,
        p: &mut Proc,
        c: &Pending,
        ts: i64,
        comm: Option<&[u8]>,
        ok: bool,
        returned: bool,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let calls_from = if returned {
            self.ids.call
        } else {
            c.call_id + 1
        };
        p.exec_seq += 1;
        self.totals.execs += 1;
        let id = TraceState::next(&mut self.ids.exec);
        if ok {
            p.image += 1;
            p.image_id = id;
        }
        let Some(comm) = comm else {
            p.awaiting_comm = Some(Box::new(AwaitingExec {
                id,
                seq: p.exec_seq,
                image: p.image,
                ts,
                call_id: c.call_id,
                calls_from,
                path: c.first_path.as_ref().map(|f| (f.0.clone(), f.1.clone())),
                argv: c.argv.clone(),
                envp: c.envp.clone(),
                cwd: p.cwd.clone(),
            }));
            return Ok(());
        };
        let (path, resolved) = match &c.first_path {
            Some((raw, res, _)) => (Some(raw.as_slice()), Some(res.as_slice())),
            None => (None, None),
        };
        sink.exec(&ExecRow {
            id,
            process_id: p.row.id,
            seq: p.exec_seq,
            image: ok.then_some(p.image),
            ts,
            call_id: Some(c.call_id),
            calls_from,
            path,
            resolved,
            comm,
            argv: c.argv.as_deref(),
            envp: c.envp.as_deref(),
            success: ok,
            cwd: p.cwd.as_deref(),
        })
    }

    /// Write the exec row that waited for its command name.
    pub fn write_awaiting<S: Sink>(
        &mut self,
        p: &mut Proc,
        comm: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let Some(a) = p.awaiting_comm.take() else {
            return Ok(());
        };
        sink.exec(&ExecRow {
            id: a.id,
            process_id: p.row.id,
            seq: a.seq,
            image: Some(a.image),
            ts: a.ts,
            call_id: Some(a.call_id),
            calls_from: a.calls_from,
            path: a.path.as_ref().map(|f| f.0.as_slice()),
            resolved: a.path.as_ref().map(|f| f.1.as_slice()),
            comm,
            argv: a.argv.as_deref(),
            envp: a.envp.as_deref(),
            success: true,
            cwd: a.cwd.as_deref(),
        })
    }

    /// The inherited image of a new process (exec row 0): a copy of its
    /// parent's, or for a posix_spawn child the program spawned (`image`).
    pub fn inherited_image<S: Sink>(
        &mut self,
        p: &mut Proc,
        ts: i64,
        image: Option<&(Vec<u8>, Vec<u8>)>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        self.totals.execs += 1;
        p.image_id = TraceState::next(&mut self.ids.exec);
        sink.exec(&ExecRow {
            id: p.image_id,
            process_id: p.row.id,
            seq: 0,
            image: Some(0),
            ts,
            call_id: None,
            calls_from: 0,
            path: image.map(|i| i.0.as_slice()),
            resolved: image.map(|i| i.1.as_slice()),
            comm: &p.comm,
            argv: None,
            envp: None,
            success: true,
            cwd: p.cwd.as_deref(),
        })
    }
}
