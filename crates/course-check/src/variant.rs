//! Variant checks: inputs drawn per student, never fitted to.
//!
//! A variant check (`variant = true` in course.toml, among the instructors' hidden checks)
//! draws its shapes and values from the seed the grader gives its exercise at run time
//! ([`check_protocol::VARIANT_ENV`]), reports the shapes with [`Variant::shapes`] and the outputs
//! with [`variant_exact_snapshot!`](crate::variant_exact_snapshot) or
//! [`variant_close_snapshot!`](crate::variant_close_snapshot). There are no snapshot files: the
//! grader runs the same check against the reference solution with the same seed and compares.
//! Under `cargo test` the check draws from [`DEFAULT_SEED`] and compares nothing.

use attention::rng::RandomState;
use check_protocol::observe::{Observation, observing, record};
use ndarray::{Array, Dimension, ShapeBuilder};

/// The seed of a variant check run without the grader (`cargo test`).
pub const DEFAULT_SEED: u64 = 0;

/// The draws of one variant check: its exercise's seed and a NumPy-compatible generator.
#[derive(Debug, Clone)]
pub struct Variant {
    exercise: String,
    seed: u64,
    rng: RandomState,
    // Calls from a variant check are not recorded as seen by the fitted plant.
    _drawing: crate::fitted::Drawing,
}

impl Variant {
    /// The draws of the variant check of `exercise`: seeded by the grader, else [`DEFAULT_SEED`].
    pub fn new(exercise: &str) -> Self {
        Self::with_seed(
            exercise,
            check_protocol::variant::seed(exercise).unwrap_or(DEFAULT_SEED),
        )
    }

    /// The draws of `exercise`'s variant check for `seed`.
    pub fn with_seed(exercise: &str, seed: u64) -> Self {
        // The generator takes 32 bits: both halves of the seed count.
        let folded = (seed ^ (seed >> 32)) as u32;
        Self {
            exercise: exercise.to_owned(),
            seed,
            rng: RandomState::new(folded),
            _drawing: crate::fitted::Drawing::new(),
        }
    }

    /// The seed drawn from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A whole number in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        let span = (high - low + 1) as f64;
        low + ((self.rng.random_sample() * span) as usize).min(high - low)
    }

    /// One of `choices` (not empty).
    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[self.between(0, choices.len() - 1)]
    }

    /// Standard normal values of the given shape, in C order (NumPy's `randn`).
    pub fn randn<Sh, D>(&mut self, shape: Sh) -> Array<f64, D>
    where
        Sh: ShapeBuilder<Dim = D>,
        D: Dimension,
    {
        self.rng.randn(shape)
    }

    /// Uniform values in `[low, high)` of the given shape, in C order.
    pub fn uniform<Sh, D>(&mut self, shape: Sh, low: f64, high: f64) -> Array<f64, D>
    where
        Sh: ShapeBuilder<Dim = D>,
        D: Dimension,
    {
        self.rng.rand(shape) * (high - low) + low
    }

    /// The generator itself, for the lessons' own drawing helpers (`GqaWeights::draw`, ...).
    pub fn rng(&mut self) -> &mut RandomState {
        &mut self.rng
    }

    /// Reports the shapes drawn (`B=2, T=3, C=6, h=3`): compared exactly with the reference's
    /// (the same seed must give the same shapes) and shown in the grader's report.
    pub fn shapes(&self, text: &str) {
        let name = format!(
            "{}{}",
            self.exercise,
            check_protocol::variant::SHAPES_SUFFIX
        );
        report(name, format!("{text}\n"), true);
    }
}

thread_local! {
    /// What this thread's variant checks reported under `cargo test` (see [`take_reports`]).
    static REPORTED: std::cell::RefCell<Vec<(String, String)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Reports a variant check's output: to the grader, or under `cargo test` to this thread's list
/// (there is no expected value but the reference solution's, which the grader computes).
#[doc(hidden)]
pub fn report(name: String, text: String, exact: bool) {
    if observing() {
        record(&Observation::Snapshot { name, text, exact });
    } else {
        REPORTED.with(|r| r.borrow_mut().push((name, text)));
    }
}

/// The `(name, text)` of every output and shapes this thread's variant checks reported under
/// `cargo test` since the last call: a test can run a check twice with one seed and compare.
pub fn take_reports() -> Vec<(String, String)> {
    REPORTED.with(|r| std::mem::take(&mut *r.borrow_mut()))
}

/// A variant check's data-movement output, compared exactly with the reference's (see
/// [`assert_exact_snapshot!`](crate::assert_exact_snapshot), whose rendering and `encoding` it
/// shares).
#[macro_export]
macro_rules! variant_exact_snapshot {
    ($name:expr, $value:expr, encoding = $encoding:expr $(,)?) => {
        $crate::variant::report(
            $crate::observe::snapshot_name(::core::module_path!(), $name),
            $crate::render_exact_encoded(&$value, $encoding),
            true,
        )
    };
    ($name:expr, $value:expr $(,)?) => {
        $crate::variant::report(
            $crate::observe::snapshot_name(::core::module_path!(), $name),
            $crate::render_exact(&$value),
            true,
        )
    };
}

/// A variant check's computed output, rounded to 4 decimals and compared with the reference's
/// within the tolerance (see [`assert_close_snapshot!`](crate::assert_close_snapshot)).
#[macro_export]
macro_rules! variant_close_snapshot {
    ($name:expr, $value:expr $(,)?) => {
        $crate::variant::report(
            $crate::observe::snapshot_name(::core::module_path!(), $name),
            $crate::render(&$value),
            false,
        )
    };
}

/// A variant check's short text (a count, an error's presence), compared exactly.
#[macro_export]
macro_rules! variant_text_snapshot {
    ($name:expr, $text:expr $(,)?) => {
        $crate::variant::report(
            $crate::observe::snapshot_name(::core::module_path!(), $name),
            ::std::format!("{}\n", $text),
            true,
        )
    };
}

/// The body of a variant check: it draws from the [`Variant`] it is given.
pub type Body = fn(&mut Variant);

/// A variant check of `exercise`: `#[test] fn my_exercise_variant() { course_check::variant::check("my_exercise", my_exercise_with); }`.
///
/// It runs `body` once with the grader's seed (see [`Variant::new`]); in a sweep
/// ([`check_protocol::variant::SWEEP_ENV`], `cargo xtask check`'s fairness proof), once per seed
/// of the sweep, each run marked and its panic caught, so one process judges many students' inputs.
pub fn check(exercise: &str, body: Body) {
    let _proof = crate::proof();
    let Some(seeds) = check_protocol::variant::sweep(exercise) else {
        return body(&mut Variant::new(exercise));
    };
    for seed in seeds {
        let marker = format!("{exercise}{}", check_protocol::variant::SWEEP_SEED_SUFFIX);
        report(marker, format!("{seed}\n"), true);
        let returned =
            std::panic::catch_unwind(|| body(&mut Variant::with_seed(exercise, seed))).is_ok();
        if observing() {
            record(&Observation::Assert {
                label: check_protocol::variant::SWEEP_RETURNED.to_owned(),
                passed: returned,
                message: String::new(),
            });
        }
    }
}

/// Runs every variant check body of `bodies` (exercise, body) for the seeds `0..seeds`, each
/// twice: panics unless every run completes, one seed gives the same shapes and outputs twice
/// (the grader compares a student's run with the reference's, so nothing may depend on anything
/// but the seed), and the shapes drawn vary (at least 15 different ones).
pub fn assert_reproducible(bodies: &[(&str, Body)], seeds: u64) {
    for (exercise, body) in bodies {
        let mut shapes = std::collections::BTreeSet::new();
        for seed in 0..seeds {
            body(&mut Variant::with_seed(exercise, seed));
            let first = take_reports();
            body(&mut Variant::with_seed(exercise, seed));
            assert_eq!(
                first,
                take_reports(),
                "{exercise}, seed {seed}: not reproducible"
            );
            let drawn = first
                .iter()
                .find(|(name, _)| name.ends_with(check_protocol::variant::SHAPES_SUFFIX));
            let (_, drawn) = drawn.unwrap_or_else(|| panic!("{exercise}: no shapes reported"));
            assert!(first.len() >= 2, "{exercise}: no output reported");
            shapes.insert(drawn.clone());
        }
        assert!(
            shapes.len() >= 15.min(seeds as usize),
            "{exercise}: only {} shapes: {shapes:?}",
            shapes.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_range_and_follow_the_seed() {
        let mut a = Variant::with_seed("x", 1 << 40);
        let mut b = Variant::with_seed("x", 1 << 40);
        let drawn: Vec<usize> = (0..200).map(|_| a.between(1, 4)).collect();
        assert!(drawn.iter().all(|n| (1..=4).contains(n)));
        assert!((1..=4).all(|n| drawn.contains(&n)), "every value comes up");
        assert_eq!(drawn, (0..200).map(|_| b.between(1, 4)).collect::<Vec<_>>());
        let mut c = Variant::with_seed("x", 1);
        assert_ne!(drawn, (0..200).map(|_| c.between(1, 4)).collect::<Vec<_>>());
        assert_eq!(a.pick(&[7]), 7);
    }
}
