//! Snapshot helpers shared by every lesson's checks.
//!
//! Tensors are written to insta file snapshots as text: a `shape` line, then one line per
//! last-axis row, labelled with the row's leading indices. Two flavours:
//!
//! * [`assert_close_snapshot!`]: numbers rounded to 4 decimals (`-0.0` written as `0.0000`), and
//!   compared with an absolute tolerance of [`TOLERANCE`], so an equally correct implementation that
//!   sums in another order still passes.
//! * [`assert_exact_snapshot!`]: numbers written in full (shortest round-trip form) and compared
//!   exactly. For data movement (split/merge/repeat) on exactly representable inputs. With
//!   `encoding = "b*10000 + t*100 + c"` (a labelled input, whose values encode their positions)
//!   the snapshot declares that encoding and a mismatch is explained in positions.
//!
//! On a mismatch the comparator first prints a `course-check:` line that says, NumPy-style, what
//! differs (the shape, or the first differing index with expected and got values, decoded into
//! positions when the snapshot declares an `encoding`); the grader shows that line to the student
//! instead of a raw diff.
//!
//! Every check starts with `let _proof = course_check::proof();` (see [`proof`]) and imports the
//! assertion macros that shadow std's (`use course_check::{assert, assert_eq, assert_ne};`).
//! Under `cargo test` they behave like std's; under the grader every assertion and snapshot is
//! reported as an [`Observation`] and the grader judges them (see [`observe`]).

mod compare;
pub mod fitted;
pub mod memory;
mod proof;
pub mod property;
mod render;
#[doc(hidden)]
pub mod shared_generics;
pub mod variant;

pub use check_protocol::observe;
pub use check_protocol::{
    Encoding, OBSERVE_ENV, Observation, PLANT_ENV, TOLERANCE, explain_difference, explain_labelled,
    planted,
};
pub use compare::{Tolerant, max_abs_diff};
pub use proof::{Proof, proof};
pub use render::{Rendering, render, render_exact, render_exact_encoded};
pub use variant::Variant;

#[doc(hidden)]
pub use check_protocol::FITTED_TO_VISIBLE as __FITTED_TO_VISIBLE;
#[doc(hidden)]
pub use insta as __insta;

/// An exercise function of a reference solution into which misconceptions can be planted: the
/// reference `crate::reference::NAME`, or, when the grader planted one of the listed
/// misconceptions (see [`planted`]), that wrong answer with the same signature. Every such
/// function also takes the built-in plant `fitted-to-visible` (see [`fitted`]).
///
/// ```ignore
/// course_check::plantable! {
///     pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
///         "split-without-transpose" => crate::misconceptions::split_without_transpose::split_heads,
///     }
/// }
/// ```
// `crate::reference` is the calling solution crate's module of reference implementations, on
// purpose: the macro is only ever called from a solution's `exercises` module.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! plantable {
    ($(pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty {
        $($id:literal => $wrong:path),* $(,)?
    })*) => {$(
        #[doc = concat!("The reference `", stringify!($name), "`, or a misconception planted in its place.")]
        pub fn $name($($arg: $ty),*) -> $ret {
            let chosen: fn($($ty),*) -> $ret = match $crate::planted() {
                Some($crate::__FITTED_TO_VISIBLE) => {
                    $crate::fitted::answer(
                        ::core::stringify!($name),
                        &[$(&$arg as &dyn ::core::fmt::Debug),*],
                    );
                    crate::reference::$name
                }
                $(Some($id) => $wrong,)*
                _ => crate::reference::$name,
            };
            chosen($($arg),*)
        }
    )*};
}

/// Snapshot a tensor with values rounded to 4 decimals and compared within [`TOLERANCE`].
///
/// `assert_close_snapshot!("name", array)` stores `<module>__name.snap` next to the check file.
#[macro_export]
macro_rules! assert_close_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let __text = $crate::render(&$value);
        $crate::__snapshot!($name, __text, $crate::Tolerant::default());
    }};
}

/// Snapshot a tensor with every value written in full and compared exactly.
///
/// * `assert_exact_snapshot!("name", array)` stores `<module>__name.snap` next to the check file.
/// * `assert_exact_snapshot!("name", array, encoding = "b*10000 + t*100 + c")`, for a tensor
///   whose every value encodes the position it came from in a *labelled* input (here
///   `setup::labelled`: sequence `b`, position `t`, channel `c`): the snapshot gets the line
///   `encoding b*10000 + t*100 + c` right after its `shape` line (see [`render_exact_encoded`]),
///   and a wrong value is then explained with the position it encodes, plus the pattern when one
///   fits: `first at index [0, 0, 1, 0]: expected 100 = (b 0, t 1, c 0), got 2 = (b 0, t 0, c 2)
///   (…); your output holds the input's values in their original order: the input was reshaped
///   without moving the head axis (…)` (see [`explain_difference`], [`explain_labelled`]).
///   Give an encoding only when every expected value decodes to the position it came from
///   (data movement: split, merge, fold, repeat), never for computed values such as averages.
///   The formula must parse with [`Encoding::parse`]; otherwise the macro panics (a bug in the
///   check).
#[macro_export]
macro_rules! assert_exact_snapshot {
    ($name:expr, $value:expr, encoding = $encoding:expr $(,)?) => {{
        let __text = $crate::render_exact_encoded(&$value, $encoding);
        $crate::__snapshot!($name, __text, $crate::Tolerant::exact());
    }};
    ($name:expr, $value:expr $(,)?) => {{
        let __text = $crate::render_exact(&$value);
        $crate::__snapshot!($name, __text, $crate::Tolerant::exact());
    }};
}

/// Snapshot a short text (a figure, a list of words): numbers in it are compared within
/// [`TOLERANCE`], words exactly.
#[macro_export]
macro_rules! assert_text_snapshot {
    ($name:expr, $text:expr $(,)?) => {{
        let __text = ::std::string::ToString::to_string(&$text);
        $crate::__snapshot!($name, __text, $crate::Tolerant::default());
    }};
}

/// Records (grader) or asserts with insta (`cargo test`) one rendered snapshot.
#[doc(hidden)]
#[macro_export]
macro_rules! __snapshot {
    ($name:expr, $text:expr, $comparator:expr) => {{
        let __text: ::std::string::String = $text;
        if $crate::observe::observing() {
            $crate::observe::record(&$crate::Observation::Snapshot {
                name: $crate::observe::snapshot_name(::core::module_path!(), $name),
                text: __text,
                exact: $crate::Tolerant::is_exact(&$comparator),
            });
        } else {
            let mut __settings = $crate::__insta::Settings::clone_current();
            __settings.set_comparator(::std::boxed::Box::new($comparator));
            __settings.set_omit_expression(true);
            __settings.bind(|| {
                $crate::__insta::assert_snapshot!($name, __text);
            });
        }
    }};
}

/// `assert!` that the grader can judge: under `cargo test` it is std's `assert!`; under the grader
/// it reports the outcome as an observation labelled with the asserted expression (and still
/// panics when it fails).
#[macro_export]
macro_rules! assert {
    ($cond:expr $(,)?) => {
        $crate::observe::assertion(::core::stringify!($cond), $cond, || {
            ::std::format!("assertion failed: {}", ::core::stringify!($cond))
        })
    };
    ($cond:expr, $($arg:tt)+) => {
        $crate::observe::assertion(::core::stringify!($cond), $cond, || {
            ::std::format!($($arg)+)
        })
    };
}

/// `assert_eq!` that the grader can judge (see [`assert!`]).
#[macro_export]
macro_rules! assert_eq {
    ($left:expr, $right:expr $(, $($arg:tt)+)?) => {
        $crate::__assert_compare!(==, $left, $right $(, $($arg)+)?)
    };
}

/// `assert_ne!` that the grader can judge (see [`assert!`]).
#[macro_export]
macro_rules! assert_ne {
    ($left:expr, $right:expr $(, $($arg:tt)+)?) => {
        $crate::__assert_compare!(!=, $left, $right $(, $($arg)+)?)
    };
}

/// The body of [`assert_eq!`] and [`assert_ne!`]: `left OP right`, labelled `left OP right`.
#[doc(hidden)]
#[macro_export]
macro_rules! __assert_compare {
    ($op:tt, $left:expr, $right:expr $(, $($arg:tt)+)?) => {
        match (&$left, &$right) {
            (__l, __r) => $crate::observe::assertion(
                ::core::concat!(
                    ::core::stringify!($left), " ", ::core::stringify!($op), " ", ::core::stringify!($right)
                ),
                *__l $op *__r,
                || $crate::observe::comparison_failed(
                    ::core::stringify!($op),
                    ::core::option::Option::<::std::string::String>::None
                        $(.or(::core::option::Option::Some(::std::format!($($arg)+))))?,
                    __l,
                    __r,
                ),
            ),
        }
    };
}
