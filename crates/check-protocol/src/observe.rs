//! Observations: what a check reports to the grader instead of judging itself.
//!
//! Under `cargo test` the checks judge themselves, like any test: the assertion macros panic and
//! the snapshot macros compare with insta. Under the grader the check process runs student code,
//! so nothing it decides can be trusted. With `COURSE_CHECK_OBSERVE=<file>` set, every assertion
//! and every snapshot becomes one JSON line appended to that file (an *observation*):
//!
//! ```text
//! {"kind":"begin"}
//! {"kind":"assert","label":"head_size(64, 4).unwrap() == 16","passed":true,"message":""}
//! {"kind":"snapshot","name":"lesson02__checks__head_two","text":"shape (1, 6, 16)\n…"}
//! {"kind":"end"}
//! ```
//!
//! The grader, which read the expected snapshots and the expected sequence of observations of
//! every check before any student code ran, compares them itself. Printing or writing anything
//! cannot turn a failure into a pass unless it is the right sequence of right values.

use std::io::Write;
use std::sync::Mutex;

/// The environment variable naming the observations file (grader mode).
pub const OBSERVE_ENV: &str = "COURSE_CHECK_OBSERVE";

/// One thing a check saw, written as one JSON object per line, its `"kind"` first
/// ([`Observation::to_json`], [`Observation::from_json`], and serde's traits).
#[derive(Debug, Clone, PartialEq)]
pub enum Observation {
    /// The check started.
    Begin,
    /// An assertion: its label (the asserted expression), whether it held, and its message.
    Assert {
        /// The asserted expression as written in the check.
        label: String,
        /// Whether it held.
        passed: bool,
        /// The failure message (empty when it held).
        message: String,
    },
    /// A value the check snapshots: the snapshot's name and the rendered text.
    Snapshot {
        /// insta's snapshot name: `<module path with __>__<name>`, the file stem of its `.snap`.
        name: String,
        /// The rendered value.
        text: String,
        /// Compared exactly (data movement) rather than within the tolerance. The grader uses its
        /// own expected value of this flag, never the check's. Absent: `false`.
        exact: bool,
    },
    /// The check function returned normally.
    End,
}

static SINK: Mutex<Option<std::fs::File>> = Mutex::new(None);

/// True when the grader asked for observations.
pub fn observing() -> bool {
    std::env::var_os(OBSERVE_ENV).is_some()
}

/// Appends `obs` to the observations file (grader mode only; a no-op otherwise).
pub fn record(obs: &Observation) {
    let Some(path) = std::env::var_os(OBSERVE_ENV) else {
        return;
    };
    let mut sink = SINK.lock().unwrap_or_else(|e| e.into_inner());
    if sink.is_none() {
        *sink = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok();
    }
    if let Some(file) = sink.as_mut() {
        let mut line = obs.to_json();
        line.push('\n');
        let _ = file.write_all(line.as_bytes());
        let _ = file.flush();
    }
}

/// Records an assertion's outcome and panics with `message` when it failed (both modes).
///
/// Generic only in its message: every assertion of every check is a copy of this function, so
/// the work is done by [`held`] and [`failed`], compiled once (with the body here, the copies
/// were 7–8% of a check executable's LLVM IR).
#[track_caller]
pub fn assertion(label: &str, passed: bool, message: impl FnOnce() -> String) {
    if passed {
        held(label);
    } else {
        failed(label, message());
    }
}

/// An assertion that held: recorded in grader mode.
fn held(label: &str) {
    if observing() {
        record(&Observation::Assert {
            label: label.to_owned(),
            passed: true,
            message: String::new(),
        });
    }
}

/// An assertion that failed: recorded in grader mode, then a panic with `message` at the
/// caller's location (the check's line).
#[track_caller]
fn failed(label: &str, message: String) -> ! {
    if observing() {
        record(&Observation::Assert {
            label: label.to_owned(),
            passed: false,
            message: message.clone(),
        });
    }
    panic!("{message}");
}

/// The message of a failed `left OP right` comparison, worded like std's `assert_eq!`.
pub fn comparison_failed(
    op: &str,
    message: Option<String>,
    left: &dyn std::fmt::Debug,
    right: &dyn std::fmt::Debug,
) -> String {
    let why = message.map(|m| format!(": {m}")).unwrap_or_default();
    format!("assertion `left {op} right` failed{why}\n  left: {left:?}\n right: {right:?}")
}

/// insta's snapshot name for `name` asserted from the module `module_path`.
pub fn snapshot_name(module_path: &str, name: &str) -> String {
    format!("{}__{name}", module_path.replace("::", "__"))
}

/// Parses an observations file; lines that are not observations are skipped.
pub fn parse(text: &str) -> Vec<Observation> {
    text.lines().filter_map(Observation::from_json).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_round_trip_as_json_lines() {
        let all = vec![
            Observation::Begin,
            Observation::Assert {
                label: "a == b".into(),
                passed: false,
                message: "no".into(),
            },
            Observation::Snapshot {
                name: "lesson02__checks__x".into(),
                text: "shape (1,)\n[] 1\n".into(),
                exact: true,
            },
            Observation::End,
        ];
        let text: String = all.iter().map(|o| o.to_json() + "\n").collect();
        assert_eq!(parse(&format!("noise\n{text}{{broken\n")), all);
        assert!(text.starts_with("{\"kind\":\"begin\"}\n"));
    }

    #[test]
    fn comparisons_fail_like_std() {
        assert_eq!(
            comparison_failed("==", None, &1, &2),
            "assertion `left == right` failed\n  left: 1\n right: 2"
        );
        assert_eq!(
            comparison_failed("!=", Some("h = 3".into()), &"a", &"a"),
            "assertion `left != right` failed: h = 3\n  left: \"a\"\n right: \"a\""
        );
    }

    #[test]
    fn a_failed_assertion_panics_with_its_message_at_the_checks_line() {
        static SEEN: Mutex<Option<(String, u32)>> = Mutex::new(None);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let at = info.location().expect("panics have a location");
            *SEEN.lock().unwrap() = Some((at.file().to_owned(), at.line()));
        }));
        let line = line!() + 1;
        let caught = std::panic::catch_unwind(|| assertion("1 == 2", false, || "no".to_owned()));
        std::panic::set_hook(previous);
        let payload = caught.expect_err("a failed assertion panics");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some("no")
        );
        assert_eq!(*SEEN.lock().unwrap(), Some((file!().to_owned(), line)));
        assertion("1 == 1", true, || {
            unreachable!("the message of a held assertion is not made")
        });
    }

    #[test]
    fn snapshot_names_follow_insta() {
        assert_eq!(
            snapshot_name("lesson02::checks", "head_two"),
            "lesson02__checks__head_two"
        );
    }
}
