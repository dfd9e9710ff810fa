//! Variant checks: official-only checks whose inputs are drawn from a seed the grader derives
//! per student (`crates/grader/src/variants/`). The grader hands the seeds to the check process at run
//! time, never at build time, in [`VARIANT_ENV`]: `exercise=seed` pairs separated by commas.

/// The environment variable holding the seeds of the variant checks (`split_heads=123,…`).
pub const VARIANT_ENV: &str = "COURSE_CHECK_VARIANT_SEEDS";

/// The name every variant check gives the snapshot of the shapes it drew ends with this: the
/// grader shows that text in its report.
pub const SHAPES_SUFFIX: &str = "__variant_shapes";

/// The environment variable of a sweep (`cargo xtask check`'s fairness proof): per exercise, the
/// seeds its variant check runs its body with, one after another in one process
/// (`split_heads=1 2 3,…`). Official grading never sets it.
pub const SWEEP_ENV: &str = "COURSE_CHECK_VARIANT_SWEEP";

/// In a sweep, each seed's run starts with a snapshot whose name ends with this (its text: the
/// seed)...
pub const SWEEP_SEED_SUFFIX: &str = "__variant_sweep_seed";

/// ... and ends with an assertion of this label, held when the body returned (a panic is caught:
/// the next seed still runs).
pub const SWEEP_RETURNED: &str = "variant body returned";

/// The value of [`SWEEP_ENV`] for `seeds` (exercise name, its seeds).
pub fn sweep_value<'a>(seeds: impl IntoIterator<Item = (&'a str, &'a [u64])>) -> String {
    seeds
        .into_iter()
        .map(|(exercise, seeds)| {
            let list: Vec<String> = seeds.iter().map(u64::to_string).collect();
            format!("{exercise}={}", list.join(" "))
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The seeds of `exercise` in a [`SWEEP_ENV`] value.
pub fn sweep_in(value: &str, exercise: &str) -> Option<Vec<u64>> {
    value.split(',').find_map(|pair| {
        let (name, seeds) = pair.split_once('=')?;
        (name == exercise)
            .then(|| {
                seeds
                    .split(' ')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .ok()
            })
            .flatten()
    })
}

/// The seeds of a sweep of `exercise` in this process's environment, if any.
pub fn sweep(exercise: &str) -> Option<Vec<u64>> {
    sweep_in(&std::env::var(SWEEP_ENV).ok()?, exercise)
}

/// The value of [`VARIANT_ENV`] for `seeds` (exercise name, seed).
pub fn seeds_value<'a>(seeds: impl IntoIterator<Item = (&'a str, u64)>) -> String {
    seeds
        .into_iter()
        .map(|(exercise, seed)| format!("{exercise}={seed}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The seed of `exercise` in a [`VARIANT_ENV`] value.
pub fn seed_in(value: &str, exercise: &str) -> Option<u64> {
    value.split(',').find_map(|pair| {
        let (name, seed) = pair.split_once('=')?;
        (name == exercise).then(|| seed.parse().ok()).flatten()
    })
}

/// The seed the grader gave `exercise` in this process's environment, if any.
pub fn seed(exercise: &str) -> Option<u64> {
    seed_in(&std::env::var(VARIANT_ENV).ok()?, exercise)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_round_trip_through_the_environment_value() {
        let value = seeds_value([("split_heads", 7), ("merge_heads", u64::MAX)]);
        assert_eq!(value, format!("split_heads=7,merge_heads={}", u64::MAX));
        assert_eq!(seed_in(&value, "merge_heads"), Some(u64::MAX));
        assert_eq!(seed_in(&value, "split"), None);
        assert_eq!(seed_in("split_heads=x", "split_heads"), None);
    }

    #[test]
    fn sweeps_round_trip_through_the_environment_value() {
        let value = sweep_value([
            ("split_heads", &[1, 2][..]),
            ("merge_heads", &[u64::MAX][..]),
        ]);
        assert_eq!(value, format!("split_heads=1 2,merge_heads={}", u64::MAX));
        assert_eq!(sweep_in(&value, "split_heads"), Some(vec![1, 2]));
        assert_eq!(sweep_in(&value, "merge_heads"), Some(vec![u64::MAX]));
        assert_eq!(sweep_in(&value, "split"), None);
        assert_eq!(sweep_in("split_heads=1 x", "split_heads"), None);
    }
}
