//! Which misconception is planted into a reference solution, if any: the grader names it in the
//! check process's environment ([`PLANT_ENV`]), and the solution crate's exercise functions read it
//! at run time ([`planted`]) to run the planted wrong answer instead of the reference one.
//!
//! One build of a solution crate therefore serves every misconception of its lesson (`grade
//! --solutions --plant ID`, `cargo xtask bless`, `cargo xtask check`); a cargo feature per
//! misconception would build the lesson's checks again for each one.

use std::sync::OnceLock;

/// The environment variable naming the planted misconception (its course.toml `id`).
pub const PLANT_ENV: &str = "COURSE_PLANT";

/// The misconception planted into this process, read once from [`PLANT_ENV`]; `None` when the
/// variable is unset or not UTF-8.
pub fn planted() -> Option<&'static str> {
    static PLANTED: OnceLock<Option<String>> = OnceLock::new();
    PLANTED
        .get_or_init(|| std::env::var(PLANT_ENV).ok())
        .as_deref()
}

/// The built-in plant of every `plantable!` exercise, never a catalogued misconception: an answer
/// fitted to the inputs it has seen (see [`FITTED_ENV`]).
pub const FITTED_TO_VISIBLE: &str = "fitted-to-visible";

/// With [`FITTED_TO_VISIBLE`] planted: `record:PATH` answers with the reference and appends each
/// call's fingerprint to `PATH`; `replay:PATH` answers only inputs recorded in `PATH` and panics on
/// any other. The grader passes it through to planted runs of the reference solutions only.
pub const FITTED_ENV: &str = "COURSE_FITTED";
