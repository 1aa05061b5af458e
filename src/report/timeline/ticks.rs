//! The time axis of the pictures (the timeline's SVG, the charts of
//! `kt2sql serve`): the unit a span is counted in, round tick spacings and
//! the labels read at a glance (`+1 min 40 s`).

/// Nanoseconds in a second.
pub const SEC: i64 = 1_000_000_000;

/// The unit an axis over `span` ns counts in: its size (ns) and name.
/// Up to ten minutes, the span's own order (`ns`, `µs`, `ms`, `s`);
/// beyond, minutes (and seconds), then hours (and minutes).
fn unit(span: i64) -> (i64, &'static str) {
    match span {
        ..1_000 => (1, "ns"),
        1_000..1_000_000 => (1_000, "µs"),
        1_000_000..SEC => (1_000_000, "ms"),
        _ if span < 600 * SEC => (SEC, "s"),
        _ if span < 10 * 3600 * SEC => (60 * SEC, "min"),
        _ => (3600 * SEC, "h"),
    }
}

/// A tick spacing giving about 8 ticks over `span` ns: 1, 2 or 5 × 10^k ns
/// up to ten minutes, then whole minutes or hours (1, 2, 5, 10, 15, 20,
/// 30 min; 1, 2, 3, 6, 12, 24 h, then days).
pub fn tick(span: i64) -> i64 {
    let raw = (span / 8).max(1);
    if span >= 600 * SEC {
        const LADDER: [i64; 13] = [1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 360, 720, 1440];
        return LADDER
            .iter()
            .map(|m| m * 60 * SEC)
            .find(|s| *s >= raw)
            .unwrap_or_else(|| (raw + 86_400 * SEC - 1) / (86_400 * SEC) * 86_400 * SEC);
    }
    let mut p = 1_i64;
    while p.saturating_mul(10) <= raw {
        p *= 10;
    }
    [1, 2, 5, 10]
        .iter()
        .map(|m| p.saturating_mul(*m))
        .find(|s| *s >= raw)
        .unwrap_or(p)
}

/// The label of the tick `t` ns after the start, on an axis over `span`
/// ns with ticks every `step` ns: `+0 s`, `+100 s`, `+1 min 40 s`,
/// `+2 h 30 min`, `+250 ms`, `+1.5 ms` (as many decimals as the step
/// needs). Past ten minutes, hours, minutes and seconds, each when not 0.
pub fn axis_label(t: i64, step: i64, span: i64) -> String {
    let (size, name) = unit(span);
    match name {
        "min" | "h" => {
            let (h, m, s) = (
                t / (3600 * SEC),
                t % (3600 * SEC) / (60 * SEC),
                t % (60 * SEC) / SEC,
            );
            let parts: Vec<String> = [(h, "h"), (m, "min"), (s, "s")]
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, u)| format!("{n} {u}"))
                .collect();
            match parts.is_empty() {
                true => format!("+0 {name}"),
                false => format!("+{}", parts.join(" ")),
            }
        }
        _ => {
            let mut decimals = 0;
            let mut q = step.max(1);
            while q % size != 0 && decimals < 3 {
                q *= 10;
                decimals += 1;
            }
            format!("+{:.*} {name}", decimals, t as f64 / size as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick(16_000_000), 2_000_000);
        assert_eq!(tick(80), 10);
        assert_eq!(tick(0), 1);
        // gzip's 406 s: every 100 s; 20 minutes: every 5 minutes.
        assert_eq!(tick(406 * SEC), 100 * SEC);
        assert_eq!(tick(1200 * SEC), 300 * SEC);
        assert_eq!(tick(5 * 3600 * SEC), 3600 * SEC);
    }

    #[test]
    fn axis_labels_read_at_a_glance() {
        let span = 406 * SEC;
        let step = tick(span);
        assert_eq!(axis_label(0, step, span), "+0 s");
        assert_eq!(axis_label(100 * SEC, step, span), "+100 s");
        assert_eq!(axis_label(400 * SEC, step, span), "+400 s");
        // Past ten minutes: minutes and seconds, then hours and minutes.
        let span = 1200 * SEC;
        assert_eq!(axis_label(100 * SEC, 20 * SEC, span), "+1 min 40 s");
        assert_eq!(axis_label(300 * SEC, tick(span), span), "+5 min");
        assert_eq!(axis_label(0, tick(span), span), "+0 min");
        let span = 11 * 3600 * SEC;
        assert_eq!(axis_label(9000 * SEC, 1800 * SEC, span), "+2 h 30 min");
        assert_eq!(axis_label(7200 * SEC, 3600 * SEC, span), "+2 h");
        assert_eq!(axis_label(0, 3600 * SEC, span), "+0 h");
        assert_eq!(
            axis_label(5400 * SEC, 1800 * SEC, 3 * 3600 * SEC),
            "+1 h 30 min"
        );
        // Under a second: ms, with the decimals the step needs.
        let span = 900_000_000;
        assert_eq!(axis_label(250_000_000, tick(span), span), "+250 ms");
        assert_eq!(axis_label(0, tick(span), span), "+0 ms");
        assert_eq!(axis_label(1_500_000, 500_000, 3_000_000), "+1.5 ms");
        assert_eq!(axis_label(1_500, 500, 3_000), "+1.5 µs");
        assert_eq!(axis_label(40, 10, 80), "+40 ns");
        // A second or more with steps under one: decimals of seconds.
        assert_eq!(
            axis_label(1_400_000_000, 200_000_000, 1_500_000_000),
            "+1.4 s"
        );
    }
}
