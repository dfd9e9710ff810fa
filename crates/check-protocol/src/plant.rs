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
