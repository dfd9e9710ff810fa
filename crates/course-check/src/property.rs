//! Property checks: a claim tested on many random shapes and values, shrunk to the smallest
//! failing case.
//!
//! ```ignore
//! use course_check::property::{Case, check, exactly};
//! #[test]
//! fn split_then_merge_gives_x_back() {
//!     let _proof = course_check::proof();
//!     check("merge(split(x)) == x", &[("B", 3), ("T", 5), ("h", 4), ("hs", 3)], |case| {
//!         let (b, t, h, hs) = (case["B"], case["T"], case["h"], case["hs"]);
//!         let x = labelled(b, t, h * hs);
//!         let back = merge_heads(split_heads(x.view(), h).map_err(case.error())?.view());
//!         exactly(&x, &back, Some("b*10000 + t*100 + c"))
//!     });
//! }
//! ```
//!
//! Every axis is drawn from `1..=max`, so 1 comes up often, and shrinks towards 1; the values of
//! [`Case::array`] come from the case's own seed. The cases are the same on every run (a fixed
//! seed, no failure files), so a correct implementation always makes the same observations.
//!
//! A property is ONE assertion (see [`crate::assert!`]) labelled `property: CLAIM`. When it fails,
//! its message is the smallest failing case and what went wrong:
//! `fails for B = 1, T = 2, h = 2, hs = 1: first at index [0, 0, 1, 0]: expected …, got …`.
//! A panic in the code under test is not caught: it stops the check as in any other check (a
//! `todo!()` reads "not started").

use crate::{Encoding, TOLERANCE, explain_difference, explain_labelled, render, render_exact};
use ndarray::{Array, Array2, ArrayBase, ArrayView2, Data, Dimension, IntoDimension, ShapeBuilder};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestCaseError, TestError, TestRunner};
use std::cell::Cell;
use std::fmt;

/// How many random cases a property tries: enough to meet every small shape class, few enough
/// that a check stays fast unoptimised.
pub const CASES: u32 = 32;

/// The seed of every property's cases.
const SEED: u64 = 0x6865_6164_7321;

/// One random case: the drawn sizes, by axis name, and a seed for the values.
#[derive(Debug, Clone)]
pub struct Case {
    axes: Vec<(&'static str, usize)>,
    seed: u64,
    drawn: Cell<u64>,
}

impl Case {
    /// A case with these sizes and value seed (what the runner draws; tests build their own).
    pub fn new(axes: &[(&'static str, usize)], seed: u64) -> Self {
        Self {
            axes: axes.to_vec(),
            seed,
            drawn: Cell::new(0),
        }
    }

    /// The size drawn for `axis`. Panics when the property has no such axis (a bug in the check).
    pub fn size(&self, axis: &str) -> usize {
        self.axes
            .iter()
            .find(|(name, _)| *name == axis)
            .map(|(_, n)| *n)
            .unwrap_or_else(|| panic!("the property draws no axis `{axis}`"))
    }

    /// A new array of `shape` with values in [-2, 2), multiples of 1/64 (exact in f64), each
    /// call a different draw from the case's seed.
    pub fn array<Sh: ShapeBuilder>(&self, shape: Sh) -> Array<f64, Sh::Dim> {
        let call = self.drawn.get();
        self.drawn.set(call + 1);
        let mut i = 0u64;
        Array::from_shape_simple_fn(shape, || {
            i += 1;
            let r = splitmix(self.seed ^ call.wrapping_mul(0x9E37_79B9) ^ i.wrapping_mul(0xBF58));
            (r % 256) as f64 / 64.0 - 2.0
        })
    }

    /// Turns an error the code under test returned into the property's failure.
    pub fn error<E: fmt::Display>(&self) -> impl Fn(E) -> String {
        |e| format!("returned an error: {e}")
    }
}

impl std::ops::Index<&str> for Case {
    type Output = usize;
    fn index(&self, axis: &str) -> &usize {
        self.axes
            .iter()
            .find(|(name, _)| *name == axis)
            .map(|(_, n)| n)
            .unwrap_or_else(|| panic!("the property draws no axis `{axis}`"))
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sizes: Vec<String> = self
            .axes
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        f.write_str(&sizes.join(", "))
    }
}

/// A 64-bit mix of `x` (SplitMix64's finaliser): independent-looking values from a counter.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Tests `claim` on [`CASES`] random cases whose axes are drawn from `1..=max` each, and reports
/// it as one assertion labelled `property: CLAIM` (see the module docs). `holds` returns why a
/// case fails.
#[track_caller]
pub fn check(
    claim: &str,
    axes: &[(&'static str, usize)],
    holds: impl Fn(&Case) -> Result<(), String>,
) {
    let outcome = smallest_failure(axes, CASES, &holds);
    let label = format!("property: {claim}");
    crate::observe::assertion(&label, outcome.is_none(), || outcome.unwrap_or_default());
}

/// The message of the smallest failing case among `cases` random ones, or `None` when all hold.
pub fn smallest_failure(
    axes: &[(&'static str, usize)],
    cases: u32,
    holds: &dyn Fn(&Case) -> Result<(), String>,
) -> Option<String> {
    let config = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(SEED),
        max_shrink_iters: 512,
        ..Config::default()
    };
    let names: Vec<&'static str> = axes.iter().map(|(n, _)| *n).collect();
    let sizes: Vec<_> = axes.iter().map(|(_, max)| 1..=(*max).max(1)).collect();
    let strategy = (sizes, 0..u64::MAX).prop_map(move |(sizes, seed)| {
        let axes: Vec<(&'static str, usize)> = names.iter().copied().zip(sizes).collect();
        Case::new(&axes, seed)
    });
    let mut runner = TestRunner::new(config);
    match runner.run(&strategy, |case| {
        holds(&case).map_err(|why| TestCaseError::fail(format!("fails for {case}: {why}")))
    }) {
        Ok(()) => None,
        Err(TestError::Fail(why, _)) => Some(why.message().to_owned()),
        Err(TestError::Abort(why)) => Some(format!("the property gave up: {}", why.message())),
    }
}

/// `Ok` when `got` equals `expected` value for value; otherwise the shape that differs or the
/// first differing value, decoded into positions when the input was labelled with `encoding`
/// (a formula [`Encoding::parse`] reads, such as `"b*10000 + t*100 + c"`).
pub fn exactly<S, T, D>(
    expected: &ArrayBase<S, D>,
    got: &ArrayBase<T, D>,
    encoding: Option<&str>,
) -> Result<(), String>
where
    S: Data<Elem = f64>,
    T: Data<Elem = f64>,
    D: Dimension,
{
    same_shape(expected.shape(), got.shape())?;
    if expected == got {
        return Ok(());
    }
    let (e, g) = (render_exact(expected), render_exact(got));
    let why = encoding
        .and_then(Encoding::parse)
        .and_then(|enc| explain_labelled(&e, &g, &enc))
        .or_else(|| explain_difference(&e, &g, 0.0))
        .unwrap_or_else(|| "the values differ".to_owned());
    Err(why)
}

/// `Ok` when `got` is within [`TOLERANCE`] of `expected` everywhere (NaN never is); otherwise
/// the shape that differs or the first value that does.
pub fn close<S, T, D>(expected: &ArrayBase<S, D>, got: &ArrayBase<T, D>) -> Result<(), String>
where
    S: Data<Elem = f64>,
    T: Data<Elem = f64>,
    D: Dimension,
{
    same_shape(expected.shape(), got.shape())?;
    let near = expected
        .iter()
        .zip(got.iter())
        .all(|(e, g)| (e - g).abs() <= TOLERANCE);
    if near {
        return Ok(());
    }
    let why = explain_difference(&render(expected), &render(got), TOLERANCE)
        .unwrap_or_else(|| "the values differ by more than the tolerance".to_owned());
    Err(why)
}

/// One head's attention weights computed the plain way, for properties to compare with: the
/// scores `scale · q kᵀ` (`q` `(T, hs)`, `k` `(S, hs)`), with query i reading only keys j <= i when
/// `causal`, and a softmax over each row shifted by its maximum (a row with no key left is 0).
pub fn plain_weights(
    q: ArrayView2<f64>,
    k: ArrayView2<f64>,
    scale: f64,
    causal: bool,
) -> Array2<f64> {
    let (t, s) = (q.nrows(), k.nrows());
    let mut w = Array2::from_shape_fn((t, s), |(i, j)| {
        if causal && j > i {
            f64::NEG_INFINITY
        } else {
            scale
                * q.row(i)
                    .iter()
                    .zip(k.row(j))
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
        }
    });
    for mut row in w.rows_mut() {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if max == f64::NEG_INFINITY {
            row.fill(0.0);
            continue;
        }
        row.mapv_inplace(|v| (v - max).exp());
        let sum = row.sum();
        row.mapv_inplace(|v| v / sum);
    }
    w
}

/// `Ok` when the two shapes are equal, otherwise both shapes.
pub fn same_shape(expected: &[usize], got: &[usize]) -> Result<(), String> {
    if expected == got {
        Ok(())
    } else {
        Err(format!(
            "shape {} expected, got {}",
            attention::error::shape_string(expected),
            attention::error::shape_string(got)
        ))
    }
}

/// `Ok` when `got` has `shape` (any dimension type that converts to one).
pub fn has_shape<Sh: IntoDimension>(got: &[usize], shape: Sh) -> Result<(), String> {
    same_shape(shape.into_dimension().slice(), got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn a_failure_shrinks_to_the_smallest_case() {
        // Fails whenever B > 1 or T > 2: the smallest failing case is B = 1, T = 3 or B = 2, T = 1.
        let why = smallest_failure(&[("B", 4), ("T", 6)], CASES, &|case| {
            if case["B"] + case["T"] > 3 {
                Err(format!("B + T = {}", case["B"] + case["T"]))
            } else {
                Ok(())
            }
        })
        .expect("some case fails");
        assert!(
            why == "fails for B = 1, T = 3: B + T = 4"
                || why == "fails for B = 2, T = 2: B + T = 4",
            "{why}"
        );
        assert_eq!(smallest_failure(&[("B", 4)], CASES, &|_| Ok(())), None);
    }

    #[test]
    fn the_cases_are_the_same_on_every_run_and_meet_one_and_more() {
        let seen = || {
            let sizes = std::sync::Mutex::new(Vec::new());
            smallest_failure(&[("h", 4)], CASES, &|case| {
                sizes.lock().unwrap().push((case["h"], case.array(2)[0]));
                Ok(())
            });
            sizes.into_inner().unwrap()
        };
        let first = seen();
        assert_eq!(first, seen());
        assert!(first.iter().any(|(h, _)| *h == 1) && first.iter().any(|(h, _)| *h > 1));
    }

    #[test]
    fn differences_name_the_first_value_and_decode_labels() {
        let e = array![[0.0, 1.0], [100.0, 101.0]];
        let g = array![[0.0, 1.0], [2.0, 101.0]];
        assert_eq!(exactly(&e, &e, None), Ok(()));
        let why = exactly(&e, &g, Some("t*100 + c")).unwrap_err();
        assert!(
            why.contains("index [1, 0]") && why.contains("(t 1, c 0)"),
            "{why}"
        );
        assert!(close(&e, &g).unwrap_err().contains("index [1, 0]"));
        assert_eq!(
            close(&e, &array![[0.0, 1.0]]).unwrap_err(),
            "shape (2, 2) expected, got (1, 2)"
        );
        assert!(close(&array![f64::NAN], &array![f64::NAN]).is_err());
    }

    #[test]
    fn plain_weights_follow_the_definition() {
        let q = array![[1.0, 0.0], [0.0, 1.0]];
        let k = array![[1.0, 0.0], [1.0, 0.0], [0.0, 800.0]];
        let w = plain_weights(q.view(), k.view(), 1.0, false);
        let e = 1f64.exp();
        assert!((w[[0, 0]] - e / (2.0 * e + 1.0)).abs() < 1e-15);
        assert_eq!(w.row(1).to_vec(), [0.0, 0.0, 1.0]);
        let causal = plain_weights(q.view(), k.view(), 1.0, true);
        assert_eq!(causal.row(0).to_vec(), [1.0, 0.0, 0.0]);
        assert_eq!(causal.row(1).to_vec(), [0.5, 0.5, 0.0]);
    }

    #[test]
    fn a_case_reads_like_the_failure_message() {
        let case = Case::new(&[("B", 1), ("T", 2)], 7);
        assert_eq!(case.to_string(), "B = 1, T = 2");
        assert_eq!(case.size("T"), 2);
        let (a, b) = (case.array((2, 3)), case.array((2, 3)));
        assert_ne!(a, b);
        assert!(
            a.iter()
                .all(|v| (-2.0..2.0).contains(v) && (v * 64.0).fract() == 0.0)
        );
    }
}
