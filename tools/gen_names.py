#!/usr/bin/env python3
"""Generate kt2sql's per-dialect name tables (src/names/<dialect>.rs).

Usage:

    python3 tools/gen_names.py DIALECT SYSCALLS ERRNO_H SIGNAL_H \\
        [--origin TEXT]... [--drop N]... > src/names/DIALECT.rs

DIALECT is one of: freebsd, netbsd, openbsd, openbsd_pre55, darwin.

SYSCALLS is the system's syscalls.master (FreeBSD, NetBSD and OpenBSD
formats are understood), or, for darwin only, either xnu's
bsd/kern/syscalls.master or a <sys/syscall.h> generated from it.
ERRNO_H and SIGNAL_H are the system's sys/errno.h and sys/signal.h; pass
"-" for both to leave the errno/signal tables out (the Rust side then
shares another dialect's tables, e.g. openbsd_pre55 uses openbsd's).

Each --drop N leaves syscall N unnamed even though the input names it;
use it (with an --origin line saying why) when the only available copy of
an input is a mirror carrying a local addition that upstream lacks.

Each --origin TEXT adds one line to the generated file's `//!` header;
use it to name the upstream repository, commit/revision and path of each
input.  The header also records the exact command line, so re-running
that command regenerates the file byte for byte (the output is a pure
function of the inputs and arguments).  Run `rustfmt` on the result.

Python 3 standard library only.

Naming rule (see src/names/mod.rs for the full statement): a number is
named by what the traced binary called.  Compat slots are named by their
function name without the compat prefix (FreeBSD `freebsd11_stat` ->
`stat`, 4.3BSD `ocreat` -> `creat`; NetBSD `compat_50_wait4` -> `wait4`,
`compat_30___stat13` -> `__stat13`, `compat_43_stat43` -> `stat`;
OpenBSD `pad_mmap` -> `mmap`).  Obsolete, unimplemented, reserved and
loadable-module placeholder slots get no name.  Live entries keep the
name the system's own syscalls.c/kdump uses (NetBSD versioned names such
as `__stat50`, aliases such as `break`).

Preprocessor conditionals inside the inputs are evaluated with every
macro defined (value 1) except COMPAT_* kernel options, include guards
(_SYS_ERRNO_H_ and the like) and the strict-namespace macros
(_POSIX_C_SOURCE, _POSIX_SOURCE, _ANSI_SOURCE, _XOPEN_SOURCE,
__cplusplus), which are undefined; when a number is still
defined twice, the first definition wins.
"""

import os
import re
import shlex
import sys

DIALECTS = ("freebsd", "netbsd", "openbsd", "openbsd_pre55", "darwin")

# Per-dialect renames applied to the final name of a live entry.
# FreeBSD main spells syscall 1 `_exit` (libsys stub naming); every FreeBSD
# release up to 14 and every other BSD call it `exit`, and kt2sql keeps one
# stable name per call.
RENAMES = {
    "freebsd": {"_exit": "exit"},
}

# Function names that mark an unnamed placeholder slot.
PLACEHOLDERS = {"nosys", "lkmnosys", "lkmressys"}

ARGS_UNKNOWN = 255

UNDEFINED_MACROS = ("_POSIX_C_SOURCE", "_POSIX_SOURCE", "_ANSI_SOURCE",
                    "_XOPEN_SOURCE", "__cplusplus")


INCLUDE_GUARD = re.compile(r"^_+[A-Z0-9_]*_H_*$")


def die(msg):
    sys.stderr.write("gen_names.py: %s\n" % msg)
    sys.exit(1)


# --------------------------------------------------------------------------
# preprocessor conditionals

def macro_defined(name):
    if name.startswith("COMPAT") or name in UNDEFINED_MACROS:
        return False
    if INCLUDE_GUARD.match(name):  # so `#ifndef _SYS_ERRNO_H_` is taken
        return False
    return True


def eval_condition(expr):
    """Evaluate a #if expression under the policy described above."""
    expr = re.sub(r"/\*.*?\*/", " ", expr)
    expr = re.sub(r"//.*", " ", expr)

    def repl_defined(m):
        return " 1 " if macro_defined(m.group(1)) else " 0 "
    expr = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)", repl_defined, expr)
    expr = re.sub(r"\bdefined\s+(\w+)", repl_defined, expr)
    expr = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr)

    def repl_ident(m):
        word = m.group(0)
        if word[0].isdigit():
            return word
        return "1" if macro_defined(word) else "0"
    expr = re.sub(r"\b[A-Za-z_]\w*\b", repl_ident, expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    try:
        return bool(eval(expr, {"__builtins__": {}}, {}))
    except Exception:  # unknown syntax: treat as enabled
        return True


class CondStack(object):
    """Tracks whether the current line is in an active #if branch."""

    def __init__(self):
        self.stack = []  # (parent_active, this_branch_taken, any_taken)

    def active(self):
        return all(entry[1] for entry in self.stack)

    def handle(self, line):
        """Return True if `line` was a conditional directive."""
        m = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
        if not m:
            return False
        kind, rest = m.group(1), m.group(2).strip()
        if kind in ("if", "ifdef", "ifndef"):
            if kind == "if":
                val = eval_condition(rest)
            else:
                name = rest.split()[0] if rest else ""
                val = macro_defined(name)
                if kind == "ifndef":
                    val = not val
            self.stack.append([True, val, val])
        elif kind == "elif":
            if self.stack:
                top = self.stack[-1]
                val = (not top[2]) and eval_condition(rest)
                top[1] = val
                top[2] = top[2] or val
        elif kind == "else":
            if self.stack:
                top = self.stack[-1]
                top[1] = not top[2]
                top[2] = True
        elif kind == "endif":
            if self.stack:
                self.stack.pop()
        return True


# --------------------------------------------------------------------------
# syscalls.master

class Entry(object):
    __slots__ = ("number", "name", "args", "kind")

    def __init__(self, number, name, args, kind):
        self.number = number
        self.name = name
        self.args = args
        self.kind = kind


def logical_records(text):
    """Yield (cond_active, record) for each syscalls.master record.

    A record starts at a line beginning with a number (or range) and runs
    until its braces balance (multi-line prototypes, `\\` continuations).
    """
    cond = CondStack()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if cond.handle(line):
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(";") or stripped.startswith("#"):
            continue
        if not re.match(r"\d+(-\d+)?\s", stripped + " "):
            continue
        rec = line
        while True:
            body = rec.rstrip()
            cont = body.endswith("\\")
            if cont:
                rec = body[:-1] + " "
            if rec.count("{") > rec.count("}") or cont:
                if i >= len(lines):
                    break
                rec += " " + lines[i]
                i += 1
                continue
            break
        yield cond.active(), re.sub(r"\s+", " ", rec).strip()


def count_args(params):
    params = params.strip()
    if params in ("", "void"):
        return 0
    n = 0
    for p in split_params(params):
        p = p.strip()
        if not p or p == "...":
            continue
        n += 1
    return n


def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def parse_proto(rec):
    """Split `{ proto } tail` -> (function token, params, tail tokens)."""
    start = rec.index("{")
    depth, end = 0, None
    for pos in range(start, len(rec)):
        if rec[pos] == "{":
            depth += 1
        elif rec[pos] == "}":
            depth -= 1
            if depth == 0:
                end = pos
                break
    if end is None:
        raise ValueError("unbalanced braces: %r" % rec)
    proto = rec[start + 1:end].strip()
    tail = rec[end + 1:].split()
    m = re.match(r"(.*?)([A-Za-z_|][\w|]*)\s*\((.*)\)\s*(\w+\s*)*;?\s*$",
                 proto, re.S)
    if not m:
        raise ValueError("cannot parse prototype: %r" % proto)
    # Trailing words after the ')' (xnu's NO_SYSCALL_STUB) are ignored.
    return m.group(2), m.group(3), tail


def parse_freebsd(text, dialect):
    entries = []
    for active, rec in logical_records(text):
        if not active:
            continue
        fields = rec.split(" ", 3)
        num = fields[0]
        # Old format: number type {...}; new: number audit type {...}
        if len(fields) > 1 and fields[1].startswith("AUE_"):
            typ = fields[2] if len(fields) > 2 else ""
        else:
            typ = fields[1] if len(fields) > 1 else ""
        lo, _, hi = num.partition("-")
        numbers = range(int(lo), int(hi or lo) + 1)
        flags = set(typ.split("|"))
        base = sorted(f for f in flags if f.startswith("COMPAT")
                      or f.lstrip("M") in ("STD", "OBSOL", "RESERVED",
                                           "UNIMPL", "SYSMUX", "NODEF",
                                           "NOSTD", "NOARGS", "NOPROTO",
                                           "NOIMPL", "CPT_NOA"))
        kinds = {f.lstrip("M") if not f.startswith("COMPAT") else f
                 for f in base}
        if kinds & {"OBSOL", "RESERVED", "UNIMPL"} or "{" not in rec:
            continue
        func, params, tail = parse_proto(rec)
        name = func
        compat = [k for k in kinds if k.startswith("COMPAT")]
        if tail and not compat:
            name = tail[0]  # old format altname
        if name.startswith("sys_"):
            name = name[4:]
        if name in PLACEHOLDERS:
            continue
        if not compat:
            name = RENAMES.get(dialect, {}).get(name, name)
        for n in numbers:
            entries.append(Entry(n, name, count_args(params), typ))
    return entries


def parse_netbsd(text, dialect):
    entries = []
    for active, rec in logical_records(text):
        if not active:
            continue
        fields = rec.split(" ")
        num, typ = fields[0], fields[1]
        if typ in ("OBSOL", "UNIMPL", "EXCL", "IGNORED") or "{" not in rec:
            continue
        func, params, tail = parse_proto(rec)
        parts = func.split("|")
        if len(parts) == 4:
            _ret, _prefix, ver, basename = parts
        else:  # old format: sys_name
            ver, basename = "", parts[-1]
            if basename.startswith("sys_"):
                basename = basename[4:]
        versioned = "__%s%s" % (basename, ver) if ver else basename
        if typ.startswith("COMPAT_"):
            name = versioned
        else:
            name = tail[0] if tail else versioned
        if name in PLACEHOLDERS:
            continue
        entries.append(Entry(int(num), name, count_args(params), typ))
    return entries


def parse_openbsd(text, dialect):
    entries = []
    for active, rec in logical_records(text):
        if not active:
            continue
        fields = rec.split(" ")
        num, typ = fields[0], fields[1]
        if typ == "OBSOL":
            # An obsolete slot appears only in traces of releases where it
            # was live, so it keeps the name it had there (37 msyscall and
            # 146 pinsyscall in a 7.3 trace); renamed padded and 32-bit-time
            # slots keep the call's name (pad_mmap -> mmap).
            if len(fields) > 2 and re.match(r"[A-Za-z_]\w*$", fields[2]):
                name = fields[2]
                for prefix in ("pad_", "t32_"):
                    if name.startswith(prefix):
                        name = name[len(prefix):]
                entries.append(Entry(int(num), name, ARGS_UNKNOWN, typ))
            continue
        if typ == "UNIMPL" or "{" not in rec:
            continue
        func, params, tail = parse_proto(rec)
        name = func[4:] if func.startswith("sys_") else func
        if name in PLACEHOLDERS:
            continue
        if not typ.startswith("COMPAT_") and tail:
            name = tail[0]
        entries.append(Entry(int(num), name, count_args(params), typ))
    return entries


def parse_darwin(text, dialect):
    if re.search(r"^\s*#\s*define\s+SYS_\w+\s+\d+", text, re.M):
        return parse_darwin_syscall_h(text)
    entries = []
    for active, rec in logical_records(text):
        if not active or "{" not in rec:
            continue
        num = rec.split(" ")[0]
        func, params, tail = parse_proto(rec)
        if func in PLACEHOLDERS:
            continue
        entries.append(Entry(int(num), func, count_args(params), "ALL"))
    return entries


def parse_darwin_syscall_h(text):
    entries = []
    cond = CondStack()
    for line in text.split("\n"):
        if cond.handle(line):
            continue
        if not cond.active():
            continue
        m = re.match(r"\s*#\s*define\s+SYS_(\w+)\s+(\d+)\s*$", line)
        if not m or m.group(1) == "MAXSYSCALL":
            continue
        entries.append(Entry(int(m.group(2)), m.group(1), ARGS_UNKNOWN,
                             "syscall.h"))
    return entries


PARSERS = {
    "freebsd": parse_freebsd,
    "netbsd": parse_netbsd,
    "openbsd": parse_openbsd,
    "openbsd_pre55": parse_openbsd,
    "darwin": parse_darwin,
}


# --------------------------------------------------------------------------
# errno.h / signal.h

def parse_defines(text, name_re, lo, hi):
    """Return {value: (name, comment)} for numeric #defines, first wins."""
    out = {}
    cond = CondStack()
    for line in text.split("\n"):
        if cond.handle(line):
            continue
        if not cond.active():
            continue
        m = re.match(r"\s*#\s*define\s+(%s)\s+\(?(-?\d+)\)?\s*"
                     r"(?:/\*+<?\s*(.*?)\s*\*/)?\s*$" % name_re, line)
        if not m:
            continue
        value = int(m.group(2))
        if value < lo or value > hi or value in out:
            continue
        out[value] = (m.group(1), (m.group(3) or "").strip())
    return out


def parse_errno(text):
    errs = parse_defines(text, r"E[A-Z0-9]+", 1, 4095)
    return {k: v for k, v in errs.items() if v[0] != "ELAST"}


def parse_signals(text):
    sigs = parse_defines(text, r"SIG[A-Z0-9]+", 1, 127)
    return {k: v[0] for k, v in sigs.items()
            if v[0] not in ("SIGRTMIN", "SIGRTMAX")}


# --------------------------------------------------------------------------
# output

def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_tables(entries):
    by_num = {}
    for e in entries:
        if e.number not in by_num:
            by_num[e.number] = e
    size = max(by_num) + 1 if by_num else 0
    names = [""] * size
    for n, e in by_num.items():
        names[n] = e.name
    return names


def emit(dialect, argv, origins, entries, errnos, signals):
    names = build_tables(entries)
    out = []
    w = out.append
    w("//! Generated name tables for the `%s` dialect -- do not edit." %
      dialect)
    w("//!")
    w("//! Upstream inputs:")
    if origins:
        for o in origins:
            w("//! - %s" % o)
    else:
        w("//! - (origin not recorded)")
    w("//!")
    w("//! Regenerate with:")
    w("//!")
    w("//! ```text")
    w("//! %s" % argv)
    w("//! rustfmt src/names/%s.rs" % dialect)
    w("//! ```")
    w("")
    w("#![allow(missing_docs)]")
    w("")
    w("/// Syscall names indexed by number; \"\" where the number names")
    w("/// nothing (obsolete, unimplemented, reserved).")
    w("pub(super) static SYSCALLS: &[&str] = &[")
    for n, name in enumerate(names):
        w("    %s, // %d" % (rust_str(name), n))
    w("];")
    if errnos is not None:
        w("")
        w("/// (symbolic name, strerror-style text) indexed by errno; (\"\", \"\")")
        w("/// where undefined.")
        w("pub(super) static ERRNOS: &[(&str, &str)] = &[")
        for n in range(0, max(errnos) + 1):
            name, text = errnos.get(n, ("", ""))
            w("    (%s, %s), // %d" % (rust_str(name), rust_str(text), n))
        w("];")
    if signals is not None:
        w("")
        w("/// Signal names indexed by number; \"\" where undefined.")
        w("pub(super) static SIGNALS: &[&str] = &[")
        for n in range(0, max(signals) + 1):
            w("    %s, // %d" % (rust_str(signals.get(n, "")), n))
        w("];")
    return "\n".join(out) + "\n"


def main(argv):
    args = list(argv[1:])
    origins = []
    drops = set()
    positional = []
    while args:
        a = args.pop(0)
        if a == "--origin":
            if not args:
                die("--origin needs a value")
            origins.append(args.pop(0))
        elif a == "--drop":
            if not args or not args[0].isdigit():
                die("--drop needs a syscall number")
            drops.add(int(args.pop(0)))
        elif a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        else:
            positional.append(a)
    if len(positional) != 4:
        die("usage: gen_names.py DIALECT SYSCALLS ERRNO_H SIGNAL_H "
            "[--origin TEXT]... [--drop N]...")
    dialect, sysf, errf, sigf = positional
    if dialect not in DIALECTS:
        die("unknown dialect %r (one of %s)" % (dialect, ", ".join(DIALECTS)))
    with open(sysf, encoding="utf-8", errors="replace") as f:
        entries = PARSERS[dialect](f.read(), dialect)
    if not entries:
        die("no syscalls found in %s" % sysf)
    missing = drops - {e.number for e in entries}
    if missing:
        die("--drop %s: no such named entry" % sorted(missing)[0])
    entries = [e for e in entries if e.number not in drops]
    errnos = signals = None
    if errf != "-":
        with open(errf, encoding="utf-8", errors="replace") as f:
            errnos = parse_errno(f.read())
    if sigf != "-":
        with open(sigf, encoding="utf-8", errors="replace") as f:
            signals = parse_signals(f.read())
    script = "tools/" + os.path.basename(argv[0])
    cmd = "python3 " + " ".join(shlex.quote(x) for x in [script] + argv[1:])
    cmd += " > src/names/%s.rs" % dialect
    sys.stdout.write(emit(dialect, cmd, origins, entries, errnos, signals))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
