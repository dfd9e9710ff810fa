//! Snapshot helpers shared by every lesson's checks.
//!
//! Tensors are written to insta file snapshots as text: a `shape` line, then one line per
//! last-axis row, labelled with the row's leading indices. Two flavours:
//!
//! * [`assert_close_snapshot!`]: numbers rounded to 4 decimals (`-0.0` written as `0.0000`), and
//!   compared with an absolute tolerance of [`TOLERANCE`], so an equally correct implementation that
//!   sums in another order still passes.
//! * [`assert_exact_snapshot!`]: numbers written in full (shortest round-trip form) and compared
//!   exactly. For data movement (split/merge/repeat) on exactly representable inputs.
//!
//! On a mismatch the comparator first prints a `course-check:` line that says, NumPy-style, what
//! differs (the shape, or the first differing index with expected and got values); the grader shows
//! that line to the student instead of a raw diff.
//!
//! Every check starts with `let _proof = course_check::proof();` (see [`proof`]), so the grader can
//! tell a check that ran to its end from code that forged the harness's output and left.

mod compare;
mod proof;
mod render;

pub use compare::{TOLERANCE, Tolerant, explain_difference, max_abs_diff};
pub use proof::{PROOF_ENV, PROOF_PREFIX, Proof, proof};
pub use render::{Rendering, render, render_exact};

#[doc(hidden)]
pub use insta as __insta;

/// Snapshot a tensor with values rounded to 4 decimals and compared within [`TOLERANCE`].
///
/// `assert_close_snapshot!("name", array)` stores `<module>__name.snap` next to the check file.
#[macro_export]
macro_rules! assert_close_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let __text = $crate::render(&$value);
        let mut __settings = $crate::__insta::Settings::clone_current();
        __settings.set_comparator(Box::new($crate::Tolerant::default()));
        __settings.set_omit_expression(true);
        __settings.bind(|| {
            $crate::__insta::assert_snapshot!($name, __text);
        });
    }};
}

/// Snapshot a tensor with every value written in full and compared exactly.
#[macro_export]
macro_rules! assert_exact_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let __text = $crate::render_exact(&$value);
        let mut __settings = $crate::__insta::Settings::clone_current();
        __settings.set_comparator(Box::new($crate::Tolerant::exact()));
        __settings.set_omit_expression(true);
        __settings.bind(|| {
            $crate::__insta::assert_snapshot!($name, __text);
        });
    }};
}
