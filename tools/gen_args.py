#!/usr/bin/env python3
"""Generate kt2sql's per-system argument constants (src/names/args/<dialect>.rs).

Usage:

    python3 tools/gen_args.py DIALECT --fcntl F --mman F --wait F \\
        --signal F --socket F --stat F --unistd F [--origin TEXT]... \\
        > src/names/args/DIALECT.rs

DIALECT is one of: freebsd, netbsd, openbsd, darwin. Each F is the
system's own header (sys/fcntl.h, sys/mman.h, sys/wait.h, sys/signal.h,
sys/socket.h, sys/stat.h, sys/unistd.h), or an excerpt of it holding
its `#define` lines unchanged. Every --origin TEXT adds one line to the
generated file's `//!` header naming where an input came from; the
header also records this command line. Run `rustfmt` on the result.

What each table takes (names in header order; the first of two names
with one value is the one printed, as in kdump's own generated tables):

    open_flags      O_*               of fcntl, hex or octal literals
    file_modes      S_I*              of stat, octal literals <= 07777
    access          F_OK R_OK W_OK X_OK   of unistd
    at_fdcwd        AT_FDCWD          of fcntl
    mmap_prot       PROT_*            of mman, hex literals
    mmap_flags      MAP_*             of mman, hex literals (no *RESERVED*,
                                      no *MASK*)
    map_alignment_shift, map_aligned  MAP_ALIGNMENT_SHIFT and the names
                                      defined as MAP_ALIGNED(n), of mman
    fcntl_cmds      F_*               of fcntl, decimal literals, lock
                                      types (F_RDLCK F_UNLCK F_WRLCK
                                      F_UNLCKSYS F_CANCEL, NetBSD F_PARAM_MAX)
                                      left out
    fd_flags        FD_CLOEXEC        of fcntl
    whence          SEEK_*            of unistd
    wait_options    W[A-Z]*           of wait, literals (not WCOREFLAG)
    sigprocmask_how SIG_BLOCK SIG_UNBLOCK SIG_SETMASK   of signal
    socket_domains  PF_*              of socket, each resolved through
                                      its AF_* (not PF_MAX)
    socket_types    SOCK_*            of socket, decimal literals
    socket_flags    SOCK_*            of socket, hex literals (not *MASK*)

Preprocessor conditionals are not evaluated: every definition counts,
the first definition of a name wins. Python 3 standard library only.
"""

import argparse
import re
import shlex
import sys

DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(.*?)\s*$")
COMMENT = re.compile(r"/\*.*?(\*/|$)|//.*$")
HEX = re.compile(r"^\(?\s*(0[xX][0-9A-Fa-f]+)[uUlL]*\s*\)?$")
OCT = re.compile(r"^\(?\s*(0[0-7]*)[uUlL]*\s*\)?$")
DEC = re.compile(r"^\(?\s*(-?\s*[1-9][0-9]*)[uUlL]*\s*\)?$")
NAME = re.compile(r"^\(?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)?$")


def defines(path):
    """(name, raw value) in file order, first definition of a name only."""
    out, seen = [], set()
    with open(path, encoding="latin-1") as f:
        text = f.read().replace("\\\n", " ")
    for line in text.splitlines():
        m = DEFINE.match(line)
        if not m:
            continue
        name, value = m.group(1), COMMENT.sub("", m.group(2)).strip()
        if not value or name in seen:
            continue
        seen.add(name)
        out.append((name, value))
    return out


EXPR = re.compile(r"^[0-9xXa-fA-F()<>|&~+\- ]+$")


def literal(value, kinds):
    """The integer a literal of one of `kinds` ('hex', 'oct', 'dec') spells;
    'expr' also takes a constant expression of literals (`(1<<2)`)."""
    if "expr" in kinds and EXPR.match(value) and not HEX.match(value):
        c_octal = re.sub(r"\b0([0-7]+)\b", r"0o\1", value)
        try:
            return int(eval(c_octal, {"__builtins__": {}}))  # digits and operators only
        except (SyntaxError, ValueError, TypeError):
            return None
    if "hex" in kinds and HEX.match(value):
        return int(HEX.match(value).group(1), 16)
    if "oct" in kinds and OCT.match(value):
        return int(OCT.match(value).group(1), 8)
    if "dec" in kinds and DEC.match(value):
        return int(DEC.match(value).group(1).replace(" ", ""))
    return None


def pick(defs, pattern, kinds, exclude=()):
    rx = re.compile(pattern + r"$")
    out = []
    for name, value in defs:
        if not rx.match(name) or name in exclude:
            continue
        v = literal(value, kinds)
        if v is not None:
            out.append((name, v))
    return out


def domains(defs):
    is_af = re.compile(r"(pseudo_)?AF_").match
    af = {n: literal(v, ("hex", "oct", "dec")) for n, v in defs if is_af(n)}
    # AF_LOCAL AF_UNIX and the like: resolve one level of aliasing.
    for n, v in defs:
        if is_af(n) and af.get(n) is None:
            m = NAME.match(v)
            if m and af.get(m.group(1)) is not None:
                af[n] = af[m.group(1)]
    pf = {}
    out = []
    for n, v in defs:
        if not re.match(r"PF_[A-Za-z0-9_]+$", n) or n == "PF_MAX":
            continue
        m = NAME.match(v)
        val = literal(v, ("hex", "oct", "dec"))
        if val is None and m:
            ref = m.group(1)
            val = af.get(ref, pf.get(ref))
        if val is not None:
            pf[n] = val
            out.append((n, val))
    return out


def one(defs, name):
    for n, v in defs:
        if n == name:
            m = re.match(r"^\(?\s*(-?\s*[0-9]+)\s*\)?$", v)
            if m:
                return int(m.group(1).replace(" ", ""))
    return None


def rust_names(ident, names):
    body = "".join('        ("%s", %d),\n' % (n, v) for n, v in names)
    return "    %s: &[\n%s    ],\n" % (ident, body)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("dialect", choices=("freebsd", "netbsd", "openbsd", "darwin"))
    for h in ("fcntl", "mman", "wait", "signal", "socket", "stat", "unistd"):
        ap.add_argument("--" + h, required=True)
    ap.add_argument("--origin", action="append", default=[])
    a = ap.parse_args(argv[1:])
    fcntl, mman, wait = defines(a.fcntl), defines(a.mman), defines(a.wait)
    signal, socket = defines(a.signal), defines(a.socket)
    stat, unistd = defines(a.stat), defines(a.unistd)
    modes = [(n, v) for n, v in pick(stat, r"S_I[A-Z]+", ("oct",)) if v <= 0o7777]
    tables = [
        ("open_flags", pick(fcntl, r"O_[A-Z0-9_]+", ("hex", "oct"))),
        ("file_modes", modes),
        ("access", pick(unistd, r"[FRWX]_OK", ("hex", "oct", "dec", "expr"))),
        ("mmap_prot", pick(mman, r"PROT_[A-Z_]+", ("hex",))),
        ("mmap_flags", [(n, v) for n, v in pick(mman, r"MAP_[A-Z0-9_]+", ("hex",))
                        if "RESERVED" not in n and "MASK" not in n]),
        ("fcntl_cmds", pick(fcntl, r"F_[A-Z0-9_]+", ("oct", "dec"),
                            ("F_RDLCK", "F_UNLCK", "F_WRLCK", "F_UNLCKSYS", "F_CANCEL", "F_OK", "F_PARAM_MAX"))),
        ("fd_flags", pick(fcntl, r"FD_CLOEXEC", ("hex", "oct", "dec"))),
        ("whence", pick(unistd, r"SEEK_[A-Z]+", ("oct", "dec"))),
        ("wait_options", pick(wait, r"W[A-Z]+", ("hex", "oct", "dec"), ("WCOREFLAG",))),
        ("sigprocmask_how", pick(signal, r"SIG_(BLOCK|UNBLOCK|SETMASK)", ("oct", "dec"))),
        ("socket_domains", domains(socket)),
        ("socket_types", [(n, v) for n, v in pick(socket, r"SOCK_[A-Z]+", ("dec",))
                          if "MAX" not in n]),
        ("socket_flags", [(n, v) for n, v in pick(socket, r"SOCK_[A-Z]+", ("hex",))
                          if "MASK" not in n]),
    ]
    for ident, names in tables:
        # Older systems have no socket type flags (Mac OS X 10.4).
        if not names and ident != "socket_flags":
            sys.exit("gen_args.py: no %s found" % ident)
    at_fdcwd = one(fcntl, "AT_FDCWD")
    # MAP_ALIGNED(n) is n << MAP_ALIGNMENT_SHIFT; names given to one n
    # (FreeBSD's MAP_ALIGNED_SUPER, NetBSD's MAP_ALIGNMENT_64KB) are kept.
    align_shift = one(mman, "MAP_ALIGNMENT_SHIFT")
    aligned = [(n, int(m.group(1))) for n, v in mman
               for m in [re.match(r"^MAP_ALIGNED\((\d+)\)$", v)] if m]
    out = ["//! Generated argument constants for the `%s` dialect -- do not edit.\n//!\n"
           % a.dialect, "//! Upstream inputs:\n"]
    out += ["//! - %s\n" % o for o in a.origin]
    out.append("//!\n//! Regenerate with:\n//!\n//! ```text\n")
    out.append("//! python3 %s > src/names/args/%s.rs\n"
               % (" ".join(shlex.quote(x) for x in argv), a.dialect))
    out.append("//! rustfmt src/names/args/%s.rs\n//! ```\n\n" % a.dialect)
    out.append("use super::ArgTables;\n\n")
    out.append("/// The `%s` argument constants.\n" % a.dialect)
    out.append("pub(super) static ARGS: ArgTables = ArgTables {\n")
    for ident, names in tables[:3]:
        out.append(rust_names(ident, names))
    # Systems older than the *at calls (Mac OS X 10.4) have none.
    out.append("    at_fdcwd: %s,\n" % ("None" if at_fdcwd is None else "Some(%d)" % at_fdcwd))
    for ident, names in tables[3:5]:
        out.append(rust_names(ident, names))
    out.append("    map_alignment_shift: %s,\n"
               % ("None" if align_shift is None else "Some(%d)" % align_shift))
    out.append(rust_names("map_aligned", aligned))
    for ident, names in tables[5:]:
        out.append(rust_names(ident, names))
    out.append("};\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main(sys.argv)
