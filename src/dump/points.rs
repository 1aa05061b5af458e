//! `dump -t TRSTR`: which record types to print, in ktrace's letters
//! (`-t cnisuw`) or as a comma-separated list of kdump's type labels
//! (`-t CALL,RET`, any case). A string made only of letters is read as
//! letters, so `csw` means `c`+`s`+`w` (calls, signals, context switches);
//! an unknown letter or label is an error, never an empty output.

/// Every type label a record can carry ([`crate::record::Body::label`]).
pub const LABELS: &[&str] = &crate::record::Kind::LABELS;

/// ktrace's trace-point letters (the union of the BSDs') and the labels
/// each selects. Exec arguments are OpenBSD's `x` and NetBSD's `a`, the
/// exec environment OpenBSD's `X` and NetBSD's `v` (ktrace.1 of each);
/// `e` is emulation changes (NetBSD, and OpenBSD before 5.x); `p` is
/// FreeBSD's capability failures and OpenBSD's pledge violations.
pub const LETTERS: &[(char, &[&str])] = &[
    ('c', &["CALL", "RET"]),
    ('n', &["NAMI"]),
    ('i', &["GIO"]),
    ('s', &["PSIG"]),
    ('u', &["USER"]),
    ('w', &["CSW"]),
    ('t', &["STRU"]),
    ('x', &["ARGS"]),
    ('a', &["ARGS"]),
    ('X', &["ENV"]),
    ('v', &["ENV"]),
    ('e', &["EMUL"]),
    ('f', &["PFLT", "PRET"]),
    ('p', &["CAP", "PLDG"]),
    ('y', &["SCTL"]),
];

/// `+`: ktrace's default set, everything but context switches and page
/// faults.
const DEFAULT_EXCLUDES: &[&str] = &["CSW", "PFLT", "PRET"];

/// Parse a TRSTR into the labels it keeps, or say what is wrong with it.
pub fn parse(trstr: &str) -> Result<Vec<&'static str>, String> {
    let s = trstr.trim();
    let letters = !s.is_empty()
        && s.chars()
            .all(|c| c == '+' || LETTERS.iter().any(|(l, _)| *l == c));
    let mut out: Vec<&'static str> = Vec::new();
    if letters {
        for c in s.chars() {
            if c == '+' {
                out.extend(LABELS.iter().filter(|l| !DEFAULT_EXCLUDES.contains(l)));
            } else if let Some((_, labels)) = LETTERS.iter().find(|(l, _)| *l == c) {
                out.extend(labels.iter());
            }
        }
    } else {
        for name in s.split(',').map(str::trim) {
            let upper = name.to_ascii_uppercase();
            match LABELS.iter().find(|l| **l == upper) {
                Some(l) => out.push(l),
                None => {
                    return Err(format!(
                        "unknown trace point '{name}' in '{trstr}': use ktrace's letters \
                         (c n i s u w t x a X v e f p y +) or type names ({})",
                        LABELS.join(",")
                    ))
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_select_their_types() {
        assert_eq!(parse("c").unwrap(), ["CALL", "RET"]);
        assert_eq!(parse("ni").unwrap(), ["GIO", "NAMI"]);
        assert_eq!(parse("csw").unwrap(), ["CALL", "CSW", "PSIG", "RET"]);
        let plus = parse("+").unwrap();
        assert!(plus.contains(&"CALL") && !plus.contains(&"CSW"));
        assert!(parse("+w").unwrap().contains(&"CSW"));
        // Exec arguments and environment in OpenBSD's and NetBSD's letters.
        assert_eq!(parse("x").unwrap(), parse("a").unwrap());
        assert_eq!(parse("X").unwrap(), ["ENV"]);
        assert_eq!(parse("v").unwrap(), ["ENV"]);
        assert_eq!(parse("e").unwrap(), ["EMUL"]);
        assert_eq!(parse("cnX").unwrap(), ["CALL", "ENV", "NAMI", "RET"]);
    }

    #[test]
    fn names_in_any_case() {
        assert_eq!(parse("CALL,ret").unwrap(), ["CALL", "RET"]);
        assert_eq!(parse(" nami ").unwrap(), ["NAMI"]);
    }

    #[test]
    fn unknown_points_are_errors() {
        for bad in ["q", "CALL,FOO", "", "c,n"] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("unknown trace point"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_labels_are_the_record_labels() {
        use crate::record::{Body, Kind};
        assert_eq!(LABELS.len(), Kind::ALL.len());
        for (label, kind) in LABELS.iter().zip(Kind::ALL) {
            assert_eq!(*label, kind.label());
        }
        // Labels are distinct, so a `-t` name selects one kind.
        let mut sorted = LABELS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), LABELS.len());
        assert!(LABELS.contains(&Body::ProcDtor.label()));
        assert!(LABELS.contains(&Body::Start.label()));
    }

    #[test]
    fn every_letter_names_known_labels() {
        for (_, labels) in LETTERS {
            for l in *labels {
                assert!(LABELS.contains(l), "{l}");
            }
        }
    }
}
