//! Verdicts: the outcome of one check and its message, and the helpers that read a panic out of a
//! check's output (the decision itself is [`crate::judge`]'s).

use serde::Serialize;

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

/// The function named by a `todo!("name: ...")` message, if any.
pub fn todo_function(message: &str) -> Option<String> {
    let rest = message.strip_prefix("not yet implemented")?;
    let rest = rest.trim_start_matches(':').trim();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

pub fn strip_col(location: &str) -> &str {
    // `path:line:col` -> `path:line`
    match location.rsplit_once(':') {
        Some((head, col)) if col.chars().all(|c| c.is_ascii_digit()) => head,
        _ => location,
    }
}

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
        assert_eq!(todo_function(&message).as_deref(), Some("split_heads"));
        assert_eq!(todo_function("not yet implemented"), None);
        assert!(panic_of("all good").is_none());
        assert_eq!(first_lines("a\nb\nc", 2), "a\nb");
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
