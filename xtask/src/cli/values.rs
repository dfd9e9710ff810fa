//! The values of flags that clap cannot check by type: time limits, shards, thresholds, deadlines,
//! and the number of jobs.

use std::time::Duration;

/// `--timeout SECS`: a number of seconds from a millisecond to a day (a smaller one would round
/// to no time at all).
///
/// Stays on `String`: clap's value parser shows it inside its own `invalid value` line.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.001..=86_400.0).contains(&secs) {
        return Err(format!(
            "must be at least 0.001 and at most 86400 seconds (a day), not {text}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// `--shard K/N`: part K of N, 1 <= K <= N (checked by the full grader, which the student build
/// hands `--submissions` to).
pub fn parse_shard(text: &str) -> Result<String, String> {
    #[cfg(feature = "instructor")]
    grader::official::shard::Shard::parse(text).map_err(|e| e.to_string())?;
    Ok(text.to_owned())
}

/// `--threshold X`: a score above 0 and at most 1 (0 would report every pair).
pub fn parse_threshold(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(format!(
            "must be a number above 0 and at most 1, not {text}"
        )),
    }
}

/// A `--deadline`: an ISO 8601 date, `YYYY-MM-DD`, with an optional time `THH:MM` or
/// `THH:MM:SS` and then an optional `Z` or `±HH:MM`. Only these characters reach the YAML, so the
/// value cannot break out of its quotes.
pub fn parse_deadline(text: &str) -> Result<String, String> {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let hh_mm = |s: &str| {
        s.split_once(':')
            .is_some_and(|(h, m)| digits(h, 2) && digits(m, 2))
    };
    let ok = (|| {
        let (date, time) = text.split_once('T').unwrap_or((text, ""));
        let mut parts = date.split('-');
        let date_ok = parts.next().is_some_and(|y| digits(y, 4))
            && parts.next().is_some_and(|m| digits(m, 2))
            && parts.next().is_some_and(|d| digits(d, 2))
            && parts.next().is_none();
        if !date_ok || (text.contains('T') && time.is_empty()) {
            return false;
        }
        if time.is_empty() {
            return true;
        }
        let (clock, zone) = match time.find(['Z', '+', '-']) {
            Some(i) => time.split_at(i),
            None => (time, ""),
        };
        let clock_ok = hh_mm(clock)
            || clock
                .rsplit_once(':')
                .is_some_and(|(hm, s)| hh_mm(hm) && digits(s, 2));
        let zone_ok =
            zone.is_empty() || zone == "Z" || zone.strip_prefix(['+', '-']).is_some_and(&hh_mm);
        clock_ok && zone_ok
    })();
    if ok {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "`{text}` is not an ISO 8601 date such as 2026-12-20T23:59:00+01:00"
        ))
    }
}

/// `--jobs`, else the number of cores.
pub fn jobs_or_cores(jobs: Option<u16>) -> usize {
    jobs.map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}
