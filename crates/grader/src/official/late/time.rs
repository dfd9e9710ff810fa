//! Times as the late policy reads them: RFC 3339 instants (`2026-12-20T23:59:00+01:00`, as
//! Gradescope's `created_at` and `git show --format=%cI` write them, and the forms of Gradescope's
//! exports: `2026-12-20 23:59:00.123456000 +01:00` in `submission_metadata.yml`,
//! `2026-12-20 23:59:00 +0100` in a grades CSV's `Submission Time`) as seconds since the Unix
//! epoch, and durations (`2d`, `36h`, `1d12h`, `90m`) as seconds.

use anyhow::{Result, bail};

/// Seconds since 1970-01-01T00:00:00Z of the RFC 3339 instant `text`: a date, `T` (or a space),
/// a time with optional fractional seconds (dropped: a penalty counts whole seconds), and `Z` or
/// an offset `±hh:mm` (Gradescope's exports: after a space, or `±hhmm`).
pub fn instant(text: &str) -> Result<i64> {
    let t = text.trim();
    let bad = || {
        anyhow::anyhow!(
            "`{}` is not a time in RFC 3339 form (2026-12-20T23:59:00+01:00)",
            crate::report::student_text::name(text)
        )
    };
    let num = |s: &str| -> Result<i64> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    if t.len() < 20 || !t.is_char_boundary(19) {
        return Err(bad());
    }
    let (date, rest) = t.split_at(10);
    let sep = rest.as_bytes()[0];
    if !matches!(sep, b'T' | b't' | b' ') {
        return Err(bad());
    }
    let (clock, mut zone) = rest[1..].split_at(8);
    let d: Vec<&str> = date.split('-').collect();
    let c: Vec<&str> = clock.split(':').collect();
    if d.len() != 3 || c.len() != 3 || d[0].len() != 4 || d[1].len() != 2 || d[2].len() != 2 {
        return Err(bad());
    }
    let (y, mo, day) = (num(d[0])?, num(d[1])?, num(d[2])?);
    let (h, mi, s) = (num(c[0])?, num(c[1])?, num(c[2])?);
    if let Some(frac) = zone.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(bad());
        }
        zone = &frac[digits..];
    }
    // Gradescope's exports write a space before the offset.
    let zone = zone.strip_prefix(' ').unwrap_or(zone);
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = match zone.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return Err(bad()),
            };
            let digits = &zone[1..];
            let (oh, om) = match digits.split_once(':') {
                Some(parts) => parts,
                None if digits.len() == 4 && digits.is_char_boundary(2) => digits.split_at(2),
                None => return Err(bad()),
            };
            if oh.len() != 2 || om.len() != 2 {
                return Err(bad());
            }
            let (oh, om) = (num(oh)?, num(om)?);
            if oh > 23 || om > 59 {
                return Err(bad());
            }
            sign * (oh * 3600 + om * 60)
        }
    };
    if !(1..=12).contains(&mo) || day < 1 || day > days_in_month(y, mo) || h > 23 || mi > 59 {
        return Err(bad());
    }
    // A leap second counts as the next second's start.
    if s > 60 {
        return Err(bad());
    }
    Ok(days_from_civil(y, mo, day) * 86_400 + h * 3600 + mi * 60 + s - offset)
}

/// The instant `text` (any form [`instant`] reads) in RFC 3339 with its own offset and whole
/// seconds: `2026-12-20 23:59:00.5 +0100` is `2026-12-20T23:59:00+01:00`.
pub fn rfc3339(text: &str) -> Result<String> {
    let at = instant(text)?;
    let t = text.trim();
    // The date and time as written, read as if in UTC: their distance to `at` is the offset.
    let local = instant(&format!("{}Z", &t[..19]))?;
    let offset = local - at;
    let sign = if offset < 0 { '-' } else { '+' };
    let o = offset.abs();
    Ok(format!(
        "{}T{}{sign}{:02}:{:02}",
        &t[..10],
        &t[11..19],
        o / 3600,
        o % 3600 / 60
    ))
}

/// Days in month `m` of year `y` (proleptic Gregorian).
fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the date `y-m-d` (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Seconds of the duration `text`: one or more of a whole number followed by `d` (days), `h`
/// (hours), `m` (minutes) or `s` (seconds), as `1d12h`.
pub fn duration(text: &str) -> Result<i64> {
    let t = text.trim();
    let mut total: i64 = 0;
    let mut digits = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => 0,
        };
        let n: i64 = match (unit, digits.parse::<i64>()) {
            (1.., Ok(n)) => n,
            _ => bail!(
                "`{}` is not a duration (`2d`, `36h`, `1d12h`, `90m`)",
                crate::report::student_text::name(text)
            ),
        };
        total = total.saturating_add(n.saturating_mul(unit));
        digits.clear();
    }
    if !digits.is_empty() || t.is_empty() {
        bail!(
            "`{}` is not a duration (`2d`, `36h`, `1d12h`, `90m`): give each number its unit",
            crate::report::student_text::name(text)
        );
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_read_as_rfc_3339_says() {
        assert_eq!(instant("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(instant("1970-01-01T01:00:00+01:00").unwrap(), 0);
        assert_eq!(instant("2000-03-01T00:00:00Z").unwrap(), 951_868_800);
        // Gradescope's created_at: microseconds and an offset.
        assert_eq!(
            instant("2019-04-19T14:08:47.457437-07:00").unwrap(),
            instant("2019-04-19T21:08:47Z").unwrap()
        );
        assert_eq!(
            instant("2024-02-29 12:00:00+00:00").unwrap()
                - instant("2024-02-28T12:00:00Z").unwrap(),
            86_400
        );
        // Gradescope's exports: a space before the offset, or no colon in it.
        for export in [
            "2019-04-19 14:08:47.457437000 -07:00",
            "2019-04-19 14:08:47 -0700",
            "2019-04-19T14:08:47-0700",
        ] {
            assert_eq!(
                instant(export).unwrap(),
                instant("2019-04-19T21:08:47Z").unwrap(),
                "{export}"
            );
            assert_eq!(rfc3339(export).unwrap(), "2019-04-19T14:08:47-07:00");
        }
        assert_eq!(
            rfc3339("2026-12-20T23:59:00Z").unwrap(),
            "2026-12-20T23:59:00+00:00"
        );
        for bad in [
            "",
            "2026-12-20 23:59:00 -070",
            "2026-12-20 23:59:00  -07:00",
            "2026-12-20 23:59:00 -07:0é",
            "2026-12-20T23:59:00",
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-12-20T24:00:00Z",
            "2026-12-20T23:59:00+1:00",
            "2026-12-20T23:59:00.Z",
            "2026-12-20X23:59:00Z",
            "２026-12-20T23:59:00Z",
        ] {
            assert!(instant(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_add_their_units() {
        assert_eq!(duration("2d").unwrap(), 172_800);
        assert_eq!(duration("1d12h").unwrap(), 129_600);
        assert_eq!(duration(" 90m ").unwrap(), 5400);
        assert_eq!(duration("30s").unwrap(), 30);
        for bad in ["", "2", "d", "2x", "1.5d", "-1d"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }
}
