//! The few header values the process model decides by, per system: the
//! `open(2)` flag bits that tell a read from a write or a create
//! ([`OpenFlags`]) and the `fcntl(2)` commands that duplicate a
//! descriptor. Both are read from the system's generated argument tables
//! ([`super::args`], made from its `sys/fcntl.h`), so each value is
//! declared once, as the header writes it; the model reads them once per
//! trace ([`FdEffects::of`]).

use super::args::{for_table, value_of, Names};
use super::Numbering;

/// The flag bits of one system's `open(2)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFlags {
    /// `O_ACCMODE`: the mask of the access mode (`O_RDONLY` 0 when clear).
    pub accmode: u64,
    /// `O_WRONLY`.
    pub wronly: u64,
    /// `O_RDWR`.
    pub rdwr: u64,
    /// `O_CREAT`: create if nonexistent.
    pub creat: u64,
    /// `O_TRUNC`: truncate to zero length.
    pub trunc: u64,
}

/// The fcntl commands whose return value is a duplicate of fd argument
/// 0: `F_DUPFD` and, where the system has them, `F_DUPFD_CLOEXEC`,
/// `F_DUP2FD` and `F_DUP2FD_CLOEXEC` (FreeBSD's, which return the target
/// fd).
const DUP_COMMANDS: [&str; 4] = ["F_DUPFD", "F_DUPFD_CLOEXEC", "F_DUP2FD", "F_DUP2FD_CLOEXEC"];

/// What opens and fcntls do to descriptors on one system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdEffects {
    /// Its `open(2)` flags.
    pub open: OpenFlags,
    /// The values of [`DUP_COMMANDS`] (`None` where it has no such command).
    dups: [Option<i64>; 4],
}

impl FdEffects {
    /// The values of the system whose names `table` holds. Panics if its
    /// tables lack an `open(2)` flag (a test reads every system's).
    pub fn of(table: Numbering) -> FdEffects {
        let t = for_table(table).expect("every system has argument tables");
        let flag = |name| must(t.open_flags, name) as u64;
        FdEffects {
            open: OpenFlags {
                accmode: flag("O_ACCMODE"),
                wronly: flag("O_WRONLY"),
                rdwr: flag("O_RDWR"),
                creat: flag("O_CREAT"),
                trunc: flag("O_TRUNC"),
            },
            dups: DUP_COMMANDS.map(|name| value_of(t.fcntl_cmds, name)),
        }
    }

    /// Whether fcntl command `cmd` returns a duplicate of its fd argument.
    pub fn fcntl_dups(&self, cmd: i64) -> bool {
        self.dups.contains(&Some(cmd))
    }
}

/// The value of `name` in `names`, which must be there.
fn must(names: Names, name: &str) -> i64 {
    value_of(names, name).unwrap_or_else(|| panic!("{name} missing from a system's table"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values kt2sql used before they were read from the tables: the
    /// 4.4BSD bits everywhere (FreeBSD's, OpenBSD's and Darwin's fcntl.h
    /// write `O_CREAT 0x0200`, NetBSD's `0x00000200`), and each system's
    /// duplicating commands.
    #[test]
    fn the_tables_give_each_systems_values() {
        let bsd44 = OpenFlags {
            accmode: 0x0003,
            wronly: 0x0001,
            rdwr: 0x0002,
            creat: 0x0200,
            trunc: 0x0400,
        };
        let dups = |t: Numbering| -> Vec<i64> {
            let fd = FdEffects::of(t);
            (-1..64).filter(|&c| fd.fcntl_dups(c)).collect()
        };
        for t in Numbering::ALL {
            assert_eq!(FdEffects::of(t).open, bsd44, "{t:?}");
        }
        // F_DUPFD; FreeBSD's F_DUP2FD 10, F_DUPFD_CLOEXEC 17, F_DUP2FD_CLOEXEC 18;
        // NetBSD's F_DUPFD_CLOEXEC 12, OpenBSD's 10; Darwin 10.4 has only F_DUPFD.
        assert_eq!(dups(Numbering::FreeBsd), [0, 10, 17, 18]);
        assert_eq!(dups(Numbering::NetBsd), [0, 12]);
        assert_eq!(dups(Numbering::OpenBsd), [0, 10]);
        assert_eq!(dups(Numbering::OpenBsdPre55), [0, 10]);
        assert_eq!(dups(Numbering::Darwin), [0]);
    }
}
