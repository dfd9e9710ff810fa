//! How far a local build is: whether it waits for another build of the same target folder (a
//! watcher's grade), then cargo's own progress line (`Building [==>  ] 23/61: a, b`), which cargo
//! writes to its piped stderr when asked to (see [`CARGO_ARGS`]), read as the build runs and kept
//! out of the stderr the build's outcome is read from.

use std::io::Read;

/// Cargo's flags that make it write its progress line to a pipe: its width bounds how many crate
/// names the line holds.
pub const CARGO_ARGS: [&str; 4] = [
    "--config",
    "term.progress.when=\"always\"",
    "--config",
    "term.progress.width=160",
];

/// Units of a build: how many are done of how many, and the ones compiling now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Units {
    /// Units finished (a crate compiled, a build script run).
    pub done: usize,
    /// Every unit the build has.
    pub total: usize,
    /// The crates compiling now, as cargo names them (`serde, syn(build)`).
    pub now: String,
}

/// What a local build tells as it goes (the grade's progress line).
pub trait Observer: Sync {
    /// Another build holds the target folder's build lock: this one waits for it.
    fn waiting(&self);
    /// Cargo's progress line, each time it changes.
    fn units(&self, units: &Units);
}

/// Reads one of cargo's progress lines, `Building [===>   ] 23/61: a, b`.
pub fn parse(segment: &str) -> Option<Units> {
    let rest = segment.trim().strip_prefix("Building [")?;
    let (_, rest) = rest.split_once(']')?;
    let (counts, now) = rest.split_once(':').unwrap_or((rest, ""));
    let (done, total) = counts.trim().split_once('/')?;
    Some(Units {
        done: done.parse().ok()?,
        total: total.parse().ok()?,
        now: now.trim().to_owned(),
    })
}

/// Reads cargo's stderr to its end: each progress line goes to `observer`, every other line is
/// returned (cargo ends a progress line with `\r`, and clears it with spaces and `\r`).
pub fn split(stderr: impl Read, observer: &dyn Observer) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut segment = Vec::new();
    for byte in std::io::BufReader::new(stderr).bytes() {
        let Ok(byte) = byte else { break };
        segment.push(byte);
        if byte == b'\r' || byte == b'\n' {
            take(&mut segment, &mut kept, observer);
        }
    }
    take(&mut segment, &mut kept, observer);
    kept
}

/// Passes on the segment just read: to `observer` when it is a progress line, dropped when it
/// only clears one (spaces, then `\r`), else kept without its `\r`.
fn take(segment: &mut Vec<u8>, kept: &mut Vec<u8>, observer: &dyn Observer) {
    let text = String::from_utf8_lossy(segment);
    if let Some(units) = parse(&text) {
        observer.units(&units);
    } else if !text.trim().is_empty() || text.ends_with('\n') {
        kept.extend_from_slice(text.trim_end_matches('\r').as_bytes());
    }
    segment.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_progress_line_gives_its_counts_and_crates() {
        assert_eq!(
            parse("    Building [=======>          ] 23/61: ndarray, pulp(build)   "),
            Some(Units {
                done: 23,
                total: 61,
                now: "ndarray, pulp(build)".into()
            })
        );
        assert_eq!(
            parse("Building [ ] 0/7").map(|u| (u.done, u.total)),
            Some((0, 7))
        );
        for other in [
            "   Compiling serde v1.0.229",
            "Building [==> ] x/7: a",
            "error: could not compile `lesson01`",
            "",
        ] {
            assert_eq!(parse(other), None, "{other}");
        }
    }

    /// The progress lines seen.
    struct Seen(Mutex<Vec<(usize, usize, String)>>);

    impl Observer for Seen {
        fn waiting(&self) {}
        fn units(&self, u: &Units) {
            self.0
                .lock()
                .unwrap()
                .push((u.done, u.total, u.now.clone()));
        }
    }

    #[test]
    fn progress_lines_are_taken_out_of_the_rest() {
        let stderr = "   Compiling a v1\n    Building [=>  ] 1/3: b       \r                  \r\
                      \x20  Compiling b v1\n    Building [==> ] 2/3: c       \r\
                      error: could not compile `c`\n";
        let seen = Seen(Mutex::new(Vec::new()));
        let kept = split(stderr.as_bytes(), &seen);
        assert_eq!(
            String::from_utf8(kept).unwrap(),
            "   Compiling a v1\n   Compiling b v1\nerror: could not compile `c`\n"
        );
        assert_eq!(
            seen.0.into_inner().unwrap(),
            [(1, 3, "b".to_owned()), (2, 3, "c".to_owned())]
        );
    }
}
