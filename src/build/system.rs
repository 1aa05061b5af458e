//! System files: what the installed system holds (headers, the compiler,
//! libraries, locale and configuration files), as opposed to a build's
//! own work. `graph`, `deps` and `rdeps` leave them out unless asked. A path is a
//! system file when it is in one of [`SYSTEM_DIRS`] and not in the
//! directory a traced build started in (`-d` at import), where everything
//! is the build's own (a build in `/usr/src/build` is no system file).

/// The directories of the installed system (hier(7) on the BSDs and
/// Linux, the macOS system domains, the ports and pkgsrc trees).
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libexec",
    "/etc",
    "/dev",
    "/proc",
    "/var",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libdata",
    "/usr/libexec",
    "/usr/include",
    "/usr/share",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/local/lib",
    "/usr/local/libexec",
    "/usr/local/include",
    "/usr/local/share",
    "/usr/pkg",
    "/usr/X11R6",
    "/usr/X11R7",
    "/opt/local",
    "/System",
    "/Library",
    "/private/etc",
    "/private/var",
];

/// Whether `path` is a system file: in one of [`SYSTEM_DIRS`] and not in
/// any of `starts`, the directories the traced builds started in.
pub fn is_system(path: &[u8], starts: &[&[u8]]) -> bool {
    let under = |dir: &[u8]| {
        let dir = dir.strip_suffix(b"/").unwrap_or(dir);
        path.starts_with(dir) && path.get(dir.len()).is_none_or(|&c| c == b'/')
    };
    SYSTEM_DIRS.iter().any(|d| under(d.as_bytes())) && !starts.iter().any(|s| under(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_files_are_the_systems_not_the_builds() {
        assert!(is_system(b"/usr/include/stdio.h", &[]));
        assert!(is_system(b"/lib", &[b"/usr/src/proj"]));
        assert!(!is_system(b"/usr/includes/x.h", &[]));
        assert!(!is_system(b"/usr/src/proj/x.c", &[b"/usr/src/proj"]));
        // A build that started inside a system directory owns its tree.
        assert!(!is_system(b"/usr/share/b/x.h", &[b"/usr/share/b/"]));
        assert!(is_system(b"/usr/share/bx", &[b"/usr/share/b"]));
    }
}
