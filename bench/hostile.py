#!/usr/bin/env python3
"""Write the three hostile traces of issue #12 item 8 (FreeBSD 14 amd64,
v1 headers, little-endian), for bench/hostile.sh to import under
/usr/bin/time -v:

  pids   2 M pids each write one CALL getpid and never exit
  paths  one process opens 2 M distinct absolute paths (CALL open, NAMI, RET)
  held   a parent's fork CALL stays pending, then 1 GiB of GIO records of a
         pid nothing announced

Usage: hostile.py SHAPE OUT [--scale F]   (F scales the counts; default 1)
Layouts: shared/docs/ktrace-formats.md 2.3 (header) and 3.1 (payloads).
"""
import struct
import sys

KTR_VERSIONED = 0x4000
SYSCALL, SYSRET, NAMEI, GENIO, PROCCTOR = 1, 2, 3, 4, 10
SYS_EXIT, SYS_FORK, SYS_OPEN, SYS_GETPID = 1, 2, 5, 20
# int len; short type; short version; pid_t pid; char comm[20];
# struct timespec time; long tid; int cpu; (4 pad) = 64 bytes on amd64.
HEADER = struct.Struct("<ihhi20sqqqi4x")


class Writer:
    def __init__(self, out):
        self.out = out
        self.ns = 1_700_000_000 * 10**9

    def rec(self, typ, pid, comm, payload, tid=None):
        self.ns += 1000
        sec, nsec = divmod(self.ns, 10**9)
        tid = pid + 100000 if tid is None else tid
        self.out.write(HEADER.pack(len(payload), typ | KTR_VERSIONED, 1, pid,
                                   comm, sec, nsec, tid, 0))
        self.out.write(payload)

    def call(self, pid, comm, code, args=()):
        p = struct.pack("<hh4x", code, len(args)) + b"".join(struct.pack("<Q", a) for a in args)
        self.rec(SYSCALL, pid, comm, p)

    def ret(self, pid, comm, code, retval, error=0):
        self.rec(SYSRET, pid, comm, struct.pack("<hhiq", code, 0, error, retval))


def pids(w, n):
    for i in range(n):
        pid = 100 + i
        w.rec(PROCCTOR, pid, b"sleeper", struct.pack("<I", 0))
        w.call(pid, b"sleeper", SYS_GETPID)


def paths(w, n):
    comm = b"walker"
    w.rec(PROCCTOR, 100, comm, struct.pack("<I", 0))
    for i in range(n):
        w.call(100, comm, SYS_OPEN, (0x800000, 0, 0))
        w.rec(NAMEI, 100, comm, b"/usr/src/build/obj/d%04d/file%07d.o" % (i % 1000, i))
        w.ret(100, comm, SYS_OPEN, 3)


def held(w, total):
    w.rec(PROCCTOR, 100, b"make", struct.pack("<I", 0))
    w.call(100, b"make", SYS_FORK)
    data = struct.pack("<ii", 1, 1) + bytes(4096)
    n = total // (HEADER.size + len(data))
    for _ in range(n):
        w.rec(GENIO, 4242, b"stranger", data)


def main():
    shape, out = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--scale" else 1.0
    with open(out, "wb", buffering=1 << 20) as f:
        w = Writer(f)
        if shape == "pids":
            pids(w, int(2_000_000 * scale))
        elif shape == "paths":
            paths(w, int(2_000_000 * scale))
        elif shape == "held":
            held(w, int((1 << 30) * scale))
        else:
            sys.exit(f"hostile.py: unknown shape {shape!r} (pids, paths, held)")


if __name__ == "__main__":
    main()
