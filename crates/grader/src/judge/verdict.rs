//! Verdicts: the outcome of one check and its message, and the helpers that read a panic out of a
//! check's output (the decision itself is [`crate::judge`]'s).

use serde::{Deserialize, Serialize};

/// The outcome of one check. Only `Passed` earns points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The check passed.
    Passed,
    /// A snapshot mismatch or a failed assertion.
    Wrong,
    /// The student's code panicked (other than `todo!`).
    Panicked,
    /// The code still hits `todo!()`.
    NotStarted,
    /// Stopped after the time limit.
    TimedOut,
    /// Killed by a signal: abort, stack overflow, segfault.
    Crashed,
    /// Exited with status 0 before the test harness reported a pass (e.g. `process::exit(0)`).
    ExitedEarly,
    /// Stopped for having more files on disk than a check may (its disk budget).
    WroteTooMuch,
    /// The lesson's crate did not compile.
    CompileError,
}

impl Status {
    /// How a person would say it.
    pub fn label(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Wrong => "wrong",
            Status::Panicked => "panicked",
            Status::NotStarted => "not started",
            Status::TimedOut => "timed out",
            Status::Crashed => "crashed",
            Status::ExitedEarly => "exited early",
            Status::WroteTooMuch => "wrote too much",
            Status::CompileError => "does not compile",
        }
    }
}

impl std::fmt::Display for Status {
    /// The report name (`not_started`): serde's, so the two never disagree.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(json.trim_matches('"'))
    }
}

/// A verdict with its explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The outcome.
    pub status: Status,
    /// What happened and what to do next (empty when passed).
    pub message: String,
    /// The misconceptions whose blessed observations the failure repeats (ids, in the order
    /// of the lesson's records); which one the report names is decided with the blame.
    pub misconceptions: Vec<String>,
}

impl Verdict {
    /// A verdict without a diagnosis.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            misconceptions: Vec::new(),
        }
    }
}

/// The panic a test printed: `(location, message)`.
pub fn panic_of(output: &str) -> Option<(String, String)> {
    let start = output.find("panicked at ")?;
    let rest = &output[start + "panicked at ".len()..];
    let (location, after) = rest.split_once(":\n").unwrap_or((rest.lines().next()?, ""));
    let message: Vec<&str> = after
        .lines()
        .take_while(|l| {
            !l.starts_with("note: ")
                && !l.starts_with("stack backtrace")
                && !l.starts_with("failures:")
                && !l.starts_with("---- ")
        })
        .collect();
    Some((
        location.trim().to_owned(),
        message.join("\n").trim().to_owned(),
    ))
}

/// Where a panic happened, for the person who reads the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// In the student's sources.
    Student,
    /// In the check's own code (`tests/`).
    Check,
    /// In a library: its name (`ndarray`, `the standard library`, ...).
    Library(String),
}

/// Which code a `path:line:col` location belongs to; `student_src` is the student's sources
/// relative to the root (`exercises/<dir>/src`).
pub fn origin(location: &str, student_src: &str) -> Origin {
    if location.contains(student_src) {
        return Origin::Student;
    }
    if location.contains("/tests/") || location.starts_with("tests/") {
        return Origin::Check;
    }
    if location.contains("/library/") && location.starts_with("/rustc/") {
        return Origin::Library("the standard library".into());
    }
    // A registry crate (`.../ndarray-0.17.1/src/...`) or a workspace crate (`crates/attention/src`).
    let before_src = location
        .rsplit_once("/src/")
        .map_or(location, |(dir, _)| dir);
    let dir = before_src.rsplit('/').next().unwrap_or(before_src);
    let name = match dir.rsplit_once('-') {
        Some((name, version)) if version.starts_with(|c: char| c.is_ascii_digit()) => name,
        _ => dir,
    };
    Origin::Library(if name.is_empty() {
        "a library".into()
    } else {
        name.to_owned()
    })
}

/// The first frame of a printed backtrace located in the student's sources (`path:line`).
pub fn student_frame(output: &str, student_src: &str) -> Option<String> {
    output
        .lines()
        .filter_map(|l| l.trim().strip_prefix("at "))
        .find_map(|at| at.find(student_src).map(|i| strip_col(&at[i..]).to_owned()))
}

/// The first frame of a printed backtrace in the check's own code (`tests/`), relative to the
/// course root when it lies in a lesson crate (a backtrace names the folder the executable was
/// built in, which may be another copy of the course).
pub fn check_frame(output: &str) -> Option<String> {
    output
        .lines()
        .filter_map(|l| l.trim().strip_prefix("at "))
        .map(|at| at.trim_start_matches("./"))
        .find(|at| at.contains("/tests/") || at.starts_with("tests/"))
        .map(|at| {
            let lesson = ["exercises/", "solutions/"]
                .iter()
                .filter_map(|dir| at.find(&format!("/{dir}")).map(|i| i + 1))
                .min();
            strip_col(&at[lesson.unwrap_or(0)..]).to_owned()
        })
}

/// `file:line:col` without its column.
pub fn strip_col(location: &str) -> &str {
    // `path:line:col` -> `path:line`
    match location.rsplit_once(':') {
        Some((head, col)) if col.chars().all(|c| c.is_ascii_digit()) => head,
        _ => location,
    }
}

/// The first `n` lines of `text`.
pub fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_are_read_from_the_output() {
        let out = "\nthread 'checks::x' panicked at exercises/l/src/exercises.rs:31:5:\nnot yet implemented: split_heads: reshape\nnote: run with `RUST_BACKTRACE=1`\n";
        let (location, message) = panic_of(out).unwrap();
        assert_eq!(strip_col(&location), "exercises/l/src/exercises.rs:31");
        assert_eq!(check_protocol::todo_function(&message), Some("split_heads"));
        assert!(panic_of("all good").is_none());
        assert_eq!(first_lines("a\nb\nc", 2), "a\nb");
    }

    #[test]
    fn panics_are_traced_to_their_code() {
        let src = "exercises/lesson02-split-heads/src";
        assert_eq!(
            origin(&format!("{src}/exercises.rs:4:1"), src),
            Origin::Student
        );
        assert_eq!(
            origin("exercises/lesson02-split-heads/tests/checks.rs:9:2", src),
            Origin::Check
        );
        assert_eq!(
            origin(
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/ndarray-0.17.1/src/impl_methods.rs:3:4",
                src
            ),
            Origin::Library("ndarray".into())
        );
        assert_eq!(
            origin("/rustc/5980/library/core/src/slice/index.rs:1:1", src),
            Origin::Library("the standard library".into())
        );
        assert_eq!(
            origin("crates/attention/src/softmax.rs:1:1", src),
            Origin::Library("attention".into())
        );
        // A hyphen is a version's only when a digit follows; `library/` outside the toolchain's
        // `/rustc/` is any folder.
        assert_eq!(
            origin("crates/check-protocol/src/observe.rs:1:1", src),
            Origin::Library("check-protocol".into())
        );
        assert_eq!(
            origin(
                "/home/library/.cargo/registry/src/i/ndarray-0.17.1/src/a.rs:1:1",
                src
            ),
            Origin::Library("ndarray".into())
        );
        assert_eq!(strip_col("exercises/x.rs:4:1"), "exercises/x.rs:4");
        assert_eq!(strip_col("C:x"), "C:x");
        assert_eq!(strip_col("no location"), "no location");
        let trace = format!(
            "stack backtrace:\n   0: x\n             at /rustc/1/library/std/src/panicking.rs:1:1\n  \
             12: ndarray::y\n             at /r/ndarray-0.17.1/src/a.rs:2:2\n  13: lesson02::exercises::split_heads\n             at ./{src}/exercises.rs:42:9\n  14: checks::c\n             at ./exercises/lesson02-split-heads/tests/checks.rs:7:1\n"
        );
        assert_eq!(
            student_frame(&trace, src).as_deref(),
            Some(format!("{src}/exercises.rs:42").as_str())
        );
        assert_eq!(
            check_frame(&trace).as_deref(),
            Some("exercises/lesson02-split-heads/tests/checks.rs:7")
        );
        assert_eq!(student_frame("no trace", src), None);
        let elsewhere = "  14: checks::c\n             at /tmp/copy/exercises/lesson02-split-heads/tests/checks.rs:7:1\n";
        assert_eq!(
            check_frame(elsewhere).as_deref(),
            Some("exercises/lesson02-split-heads/tests/checks.rs:7")
        );
    }

    #[test]
    fn statuses_serialise_in_snake_case() {
        assert_eq!(
            serde_json::to_string(&Status::NotStarted).unwrap(),
            "\"not_started\""
        );
        assert_eq!(Status::TimedOut.label(), "timed out");
        assert_eq!(Status::NotStarted.to_string(), "not_started");
    }
}
