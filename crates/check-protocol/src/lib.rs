//! The contract between a check process and the grader, with no numeric dependencies.
//!
//! * [`observe`]: what a check reports instead of judging itself (one JSON line per assertion
//!   and snapshot, between `begin` and `end`), and how the grader reads it back (the JSON form:
//!   [`Observation::to_json`], [`Observation::from_json`]).
//! * [`explain_difference`] (and [`explain_labelled`], [`Encoding`]): the comparison rules for
//!   snapshot texts (numbers within [`TOLERANCE`], or exactly) and the one-line explanation of the
//!   first difference, NumPy-style, decoded into positions for labelled inputs.
//! * [`plant`]: which misconception the grader planted into a reference solution
//!   ([`PLANT_ENV`], read by the solution with [`planted`]).
//! * [`variant`]: the per-student seeds of the variant checks ([`VARIANT_ENV`]).
//! * [`stub`]: which function a `todo!("NAME: …")` stub names ([`todo_function`]), for the
//!   grader's "implement `NAME` next" and the demos' "not computed" lines.
//!
//! The checks use this crate through `course-check` (its snapshot macros and insta comparator);
//! the grader uses it directly, so both sides apply the very same rules.

mod difference;
mod json;
pub mod observe;
pub mod plant;
pub mod stub;
pub mod variant;

pub use difference::{Encoding, TOLERANCE, explain_difference, explain_labelled};
pub use observe::{OBSERVE_ENV, Observation};
pub use plant::{FITTED_ENV, FITTED_TO_VISIBLE, PLANT_ENV, planted};
pub use stub::{TODO_PREFIX, todo_function};
pub use variant::VARIANT_ENV;
