//! The frame of a check: `let _proof = course_check::proof();` first in every check.
//!
//! Under the grader it records a `begin` observation, and an `end` observation when the check
//! function returns normally (not while panicking, not when the process exits early); the grader
//! passes a check only when its observations run from `begin` to `end` and every one of them is
//! what the grader expected. Under `cargo test` it does nothing.

use crate::observe::{Observation, observing, record};

/// Marks the end of a check when dropped at its normal end (see the module docs).
#[derive(Debug)]
#[must_use = "bind it to a variable (`let _proof = course_check::proof();`) so it lives to the end of the check"]
pub struct Proof(bool);

/// Call first in every check: `let _proof = course_check::proof();`.
pub fn proof() -> Proof {
    let on = observing();
    if on {
        record(&Observation::Begin);
    }
    Proof(on)
}

impl Drop for Proof {
    fn drop(&mut self) {
        if self.0 && !std::thread::panicking() {
            record(&Observation::End);
        }
    }
}
