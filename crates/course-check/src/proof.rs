//! Proof that a check ran to its end.
//!
//! Student code runs inside the check process, so it could print the test harness's success
//! lines itself and leave with `exit(0)`. The grader therefore also asks each check for a proof:
//! with `COURSE_CHECK_PROOF` set, [`proof`] reads a one-time token from standard input *before*
//! any student code runs, and the returned guard prints it when the check function returns
//! normally (not while panicking, not when the process exits early). Student code never sees
//! the token. Outside the grader (`cargo test`) the guard does nothing.

use std::io::{BufRead, Write};

/// The environment variable that asks checks for a proof.
pub const PROOF_ENV: &str = "COURSE_CHECK_PROOF";
/// The line a finished check prints before its token.
pub const PROOF_PREFIX: &str = "course-check-proof: ";

/// Prints the token when dropped at the normal end of a check (see the module docs).
#[derive(Debug)]
#[must_use = "bind it to a variable (`let _proof = course_check::proof();`) so it lives to the end of the check"]
pub struct Proof(Option<String>);

/// Call first in every check: `let _proof = course_check::proof();`.
pub fn proof() -> Proof {
    if std::env::var_os(PROOF_ENV).is_none() {
        return Proof(None);
    }
    let mut token = String::new();
    let _ = std::io::stdin().lock().read_line(&mut token);
    Proof(Some(token.trim().to_owned()))
}

impl Drop for Proof {
    fn drop(&mut self) {
        if let Some(token) = &self.0
            && !std::thread::panicking()
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "\n{PROOF_PREFIX}{token}");
            let _ = out.flush();
        }
    }
}
