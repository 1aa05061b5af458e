//! Lexical path resolution: join a looked-up path to its base and
//! normalise it. `.` and empty components are dropped, `..` pops one
//! component (and stays at `/`), a trailing `/` goes. Symlinks are not
//! followed: nothing here touches a file system.

/// `path` normalised: absolute when it is absolute or `base` (absolute) is
/// given; otherwise normalised relative (leading `..` kept, `.` when empty).
pub fn resolve(base: Option<&[u8]>, path: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::with_capacity(16);
    let absolute = path.first() == Some(&b'/') || base.is_some();
    if path.first() != Some(&b'/') {
        if let Some(b) = base {
            push_components(&mut parts, b, true);
        }
    }
    push_components(&mut parts, path, absolute);
    let len: usize = parts.iter().map(|p| p.len() + 1).sum();
    let mut out = Vec::with_capacity(len.max(1));
    if absolute {
        if parts.is_empty() {
            out.push(b'/');
        }
        for p in &parts {
            out.push(b'/');
            out.extend_from_slice(p);
        }
    } else if parts.is_empty() {
        out.push(b'.');
    } else {
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                out.push(b'/');
            }
            out.extend_from_slice(p);
        }
    }
    out
}

fn push_components<'a>(parts: &mut Vec<&'a [u8]>, path: &'a [u8], absolute: bool) {
    for c in path.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                if parts.last().is_some_and(|&l| l != b"..") {
                    parts.pop();
                } else if !absolute {
                    parts.push(c);
                }
            }
            _ => parts.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    fn r(base: Option<&str>, p: &str) -> String {
        String::from_utf8(resolve(base.map(str::as_bytes), p.as_bytes())).unwrap()
    }

    #[test]
    fn absolute_paths_normalise() {
        assert_eq!(r(None, "/"), "/");
        assert_eq!(r(None, "//usr//bin/"), "/usr/bin");
        assert_eq!(r(None, "/a/../a/./b"), "/a/b");
        assert_eq!(r(None, "/../.."), "/");
        assert_eq!(r(Some("/x"), "/etc/passwd"), "/etc/passwd");
    }

    #[test]
    fn relative_paths_join_their_base() {
        assert_eq!(r(Some("/usr/src"), "obj"), "/usr/src/obj");
        assert_eq!(r(Some("/usr/src"), "../include/./x.h"), "/usr/include/x.h");
        assert_eq!(r(Some("/usr/src"), ".."), "/usr");
        assert_eq!(r(Some("/"), "../.."), "/");
        assert_eq!(r(Some("/usr/src"), "."), "/usr/src");
        assert_eq!(r(Some("/usr/src"), "..//src/"), "/usr/src");
    }

    #[test]
    fn unknown_base_stays_relative() {
        assert_eq!(r(None, "./a/b/"), "a/b");
        assert_eq!(r(None, "../x/../y"), "../y");
        assert_eq!(r(None, "."), ".");
        assert_eq!(r(None, "a/../.."), "..");
    }
}
