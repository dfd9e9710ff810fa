//! Reading a finished check process: its exit and its output become a verdict with a message a
//! student can act on.

use serde::Serialize;

/// The environment variable that asks a check for its proof (`course_check::PROOF_ENV`).
pub const PROOF_ENV: &str = "COURSE_CHECK_PROOF";
/// What a check prints before its proof token (`course_check::PROOF_PREFIX`).
pub const PROOF_PREFIX: &str = "course-check-proof: ";

/// The outcome of one check. Only `Passed` earns points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord, Hash)]
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
    /// The lesson's crate did not compile.
    CompileError,
}

impl Status {
    /// The lower-case name used in every report.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Wrong => "wrong",
            Status::Panicked => "panicked",
            Status::NotStarted => "not_started",
            Status::TimedOut => "timed_out",
            Status::Crashed => "crashed",
            Status::ExitedEarly => "exited_early",
            Status::CompileError => "compile_error",
        }
    }

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
            Status::CompileError => "does not compile",
        }
    }
}

/// How the check process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it.
    Signal(i32),
    /// The grader stopped it at the time limit.
    TimedOut,
}

/// A verdict with its explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The outcome.
    pub status: Status,
    /// What happened and what to do next (empty when passed).
    pub message: String,
}

fn verdict(status: Status, message: impl Into<String>) -> Verdict {
    Verdict {
        status,
        message: message.into(),
    }
}

/// The panic a test printed: `(location, message)`.
fn panic_of(output: &str) -> Option<(String, String)> {
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

/// The function named by a `todo!("name: ...")` message, if any.
fn todo_function(message: &str) -> Option<String> {
    let rest = message.strip_prefix("not yet implemented")?;
    let rest = rest.trim_start_matches(':').trim();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

fn strip_col(location: &str) -> &str {
    // `path:line:col` -> `path:line`
    match location.rsplit_once(':') {
        Some((head, col)) if col.chars().all(|c| c.is_ascii_digit()) => head,
        _ => location,
    }
}

/// Insta's diff, condensed to `expected ... / got ...` lines.
fn snapshot_diff(output: &str) -> Option<String> {
    let mut expected = Vec::new();
    let mut got = Vec::new();
    for line in output.lines() {
        if let Some((_, text)) = line.split_once("│-") {
            expected.push(text.trim_end().to_owned());
        } else if let Some((_, text)) = line.split_once("│+") {
            got.push(text.trim_end().to_owned());
        }
    }
    if expected.is_empty() && got.is_empty() {
        return None;
    }
    let show = |v: &[String]| v.iter().take(3).cloned().collect::<Vec<_>>().join(" | ");
    Some(format!(
        "expected: {}\ngot:      {}",
        show(&expected),
        show(&got)
    ))
}

/// Classifies a finished check. `student_src` is a path fragment of the student's sources
/// (`exercises/lesson02-split-heads/src`), `token` the one-time proof the check prints when it returns normally (see `course_check::proof`).
pub fn classify(ending: Ending, output: &str, student_src: &str, token: &str) -> Verdict {
    let passed_line = output
        .lines()
        .any(|l| l.starts_with("test result: ok. 1 passed;"));
    let proof = format!("{PROOF_PREFIX}{token}");
    let proved = !token.is_empty() && output.lines().any(|l| l == proof);
    match ending {
        Ending::TimedOut => {
            return verdict(
                Status::TimedOut,
                "did not finish in time: look for a loop that never ends",
            );
        }
        Ending::Signal(sig) => {
            let why = if output.contains("has overflowed its stack") {
                "stack overflow: a recursion that never reaches its base case?".to_owned()
            } else if sig == 6 {
                "the process aborted (SIGABRT), e.g. `std::process::abort()` or a panic while panicking".to_owned()
            } else {
                format!("the process was killed by signal {sig}")
            };
            return verdict(Status::Crashed, why);
        }
        Ending::Exited(0) if passed_line && proved => {
            return verdict(Status::Passed, "");
        }
        Ending::Exited(0) if passed_line => {
            return verdict(
                Status::ExitedEarly,
                "the check did not reach its end, yet the process reported success (was the test harness's output printed by the code under test?)",
            );
        }
        Ending::Exited(0) => {
            return verdict(
                Status::ExitedEarly,
                "the process exited with status 0 before the check finished (did the code call `std::process::exit`?)",
            );
        }
        Ending::Exited(_) => {}
    }
    let Some((location, message)) = panic_of(output) else {
        return verdict(
            Status::Crashed,
            "the check process failed without reporting a result (exit code set by the code under test?)",
        );
    };
    if message.starts_with("not yet implemented") {
        return match todo_function(&message) {
            Some(f) => verdict(
                Status::NotStarted,
                format!("implement `{f}` next ({})", strip_col(&location)),
            ),
            None => verdict(
                Status::NotStarted,
                format!("still `todo!()` at {}", strip_col(&location)),
            ),
        };
    }
    if let Some(line) = output
        .lines()
        .find_map(|l| l.strip_prefix("course-check: "))
    {
        return verdict(Status::Wrong, line.to_owned());
    }
    if message.starts_with("snapshot assertion for") {
        let detail = snapshot_diff(output).unwrap_or_else(|| message.clone());
        return verdict(Status::Wrong, detail);
    }
    if location.contains(student_src) {
        return verdict(
            Status::Panicked,
            format!(
                "panicked at {}: {}",
                strip_col(&location),
                first_lines(&message, 3)
            ),
        );
    }
    if location.contains("/tests/") || location.contains("tests/checks.rs") {
        return verdict(Status::Wrong, first_lines(&message, 4));
    }
    verdict(
        Status::Panicked,
        format!(
            "panicked at {}: {}",
            strip_col(&location),
            first_lines(&message, 3)
        ),
    )
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "checks::split_shape";
    const SRC: &str = "exercises/lesson02-split-heads/src";
    const TOKEN: &str = "0123abcd";

    fn failed(body: &str) -> String {
        format!(
            "\nrunning 1 test\ntest {NAME} ... FAILED\n\nfailures:\n\n---- {NAME} stdout ----\n{body}\nfailures:\n    {NAME}\n\ntest result: FAILED. 0 passed; 1 failed;\n"
        )
    }

    #[test]
    fn proof_protocol_matches_the_checks_side() {
        assert_eq!(PROOF_ENV, course_check::PROOF_ENV);
        assert_eq!(PROOF_PREFIX, course_check::PROOF_PREFIX);
    }

    #[test]
    fn a_clean_pass_is_passed() {
        let out = format!(
            "\nrunning 1 test\ntest {NAME} ... \ncourse-check-proof: {TOKEN}\nok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored;\n"
        );
        assert_eq!(
            classify(Ending::Exited(0), &out, SRC, TOKEN).status,
            Status::Passed
        );
        // The same text with a non-zero exit, or exit 0 without it, is not a pass.
        assert_eq!(
            classify(Ending::Exited(0), "", SRC, TOKEN).status,
            Status::ExitedEarly
        );
        let fake = "test result: ok. 1 passed; 0 failed;\n";
        assert_eq!(
            classify(Ending::Exited(0), fake, SRC, TOKEN).status,
            Status::ExitedEarly
        );
        // A complete forged transcript without the proof (or with another run's) is not a pass.
        let forged = out.replace(TOKEN, "");
        assert_eq!(
            classify(Ending::Exited(0), &forged, SRC, TOKEN).status,
            Status::ExitedEarly
        );
        let replayed = out.replace(TOKEN, "99999999");
        assert_eq!(
            classify(Ending::Exited(0), &replayed, SRC, TOKEN).status,
            Status::ExitedEarly
        );
    }

    #[test]
    fn todo_names_the_function() {
        let out = failed(&format!(
            "\nthread '{NAME}' panicked at {SRC}/exercises.rs:31:5:\nnot yet implemented: split_heads: reshape then swap\nnote: run with `RUST_BACKTRACE=1`"
        ));
        let v = classify(Ending::Exited(101), &out, SRC, TOKEN);
        assert_eq!(v.status, Status::NotStarted);
        assert_eq!(
            v.message,
            format!("implement `split_heads` next ({SRC}/exercises.rs:31)")
        );
    }

    #[test]
    fn panics_in_student_code_and_failed_assertions_differ() {
        let student = failed(&format!(
            "\nthread '{NAME}' panicked at {SRC}/exercises.rs:40:9:\nindex out of bounds: the len is 3 but the index is 3\n"
        ));
        let v = classify(Ending::Exited(101), &student, SRC, TOKEN);
        assert_eq!(v.status, Status::Panicked);
        assert!(v.message.contains("index out of bounds"), "{}", v.message);

        let assertion = failed(&format!(
            "\nthread '{NAME}' panicked at exercises/lesson02-split-heads/tests/checks.rs:12:5:\nassertion `left == right` failed\n  left: [1, 6, 4, 16]\n right: [1, 4, 6, 16]\n"
        ));
        assert_eq!(
            classify(Ending::Exited(101), &assertion, SRC, TOKEN).status,
            Status::Wrong
        );

        let snapshot = failed(&format!(
            "course-check: wrong shape: expected (1, 4, 6, 16), got (1, 6, 4, 16)\nthread '{NAME}' panicked at /x/insta/src/runtime.rs:1:1:\nsnapshot assertion for 'x' failed in line 3\n"
        ));
        let v = classify(Ending::Exited(101), &snapshot, SRC, TOKEN);
        assert_eq!(v.status, Status::Wrong);
        assert_eq!(
            v.message,
            "wrong shape: expected (1, 4, 6, 16), got (1, 6, 4, 16)"
        );
    }

    #[test]
    fn signals_and_timeouts() {
        let overflow =
            "\nthread 'x' has overflowed its stack\nfatal runtime error: stack overflow\n";
        let v = classify(Ending::Signal(6), overflow, SRC, TOKEN);
        assert_eq!(v.status, Status::Crashed);
        assert!(v.message.starts_with("stack overflow"));
        assert_eq!(
            classify(Ending::Signal(6), "", SRC, TOKEN).status,
            Status::Crashed
        );
        assert_eq!(
            classify(Ending::TimedOut, "", SRC, TOKEN).status,
            Status::TimedOut
        );
    }
}
