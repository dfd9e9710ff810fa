//! insta's side of the snapshot comparison: the [`Tolerant`] comparator (the rules and the
//! explanations live in `check_protocol`, shared with the grader), and [`max_abs_diff`].

use check_protocol::{TOLERANCE, explain_difference};
use insta::internals::SnapshotContents;
use insta::{Comparator, Snapshot};
use ndarray::{ArrayViewD, AsArray, Dimension};

/// The largest `|a - b|` over two arrays (owned, views or references), for checks that compare
/// two computations. Panics, naming both shapes, when the shapes differ.
///
/// ```
/// use ndarray::array;
/// let (a, b) = (array![[1.0, 2.0]], array![[1.5, 2.0]]);
/// assert_eq!(course_check::max_abs_diff(&a, &b), 0.5);
/// assert_eq!(course_check::max_abs_diff(a.view(), a.view()), 0.0);
/// ```
pub fn max_abs_diff<'a, 'b, D: Dimension>(
    a: impl AsArray<'a, f64, D>,
    b: impl AsArray<'b, f64, D>,
) -> f64 {
    let (a, b) = (a.into(), b.into());
    assert_eq!(a.shape(), b.shape(), "the two arrays have different shapes");
    largest_difference(a.into_dyn(), b.into_dyn())
}

/// The work of [`max_abs_diff`], compiled once rather than once per array type.
fn largest_difference(a: ArrayViewD<'_, f64>, b: ArrayViewD<'_, f64>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// An insta [`Comparator`] for the course's tensor snapshots: tokens that parse as numbers are
/// compared within `tolerance`, all other tokens exactly. A mismatch prints a `course-check:` line
/// that explains the first difference (see [`explain_difference`]).
#[derive(Debug, Clone, Copy)]
pub struct Tolerant {
    tolerance: f64,
}

impl Default for Tolerant {
    fn default() -> Self {
        Self {
            tolerance: TOLERANCE,
        }
    }
}

impl Tolerant {
    /// A comparator that accepts no numeric difference at all.
    pub fn exact() -> Self {
        Self { tolerance: 0.0 }
    }

    /// True for the exact comparator.
    pub fn is_exact(&self) -> bool {
        self.tolerance == 0.0
    }
}

fn text(s: &Snapshot) -> Option<String> {
    match s.contents() {
        SnapshotContents::Text(t) => Some(t.to_string()),
        _ => None,
    }
}

impl Comparator for Tolerant {
    fn matches(&self, reference: &Snapshot, test: &Snapshot) -> bool {
        let (Some(expected), Some(got)) = (text(reference), text(test)) else {
            return reference.contents() == test.contents();
        };
        match explain_difference(&expected, &got, self.tolerance) {
            None => true,
            Some(why) => {
                eprintln!("course-check: {why}");
                false
            }
        }
    }

    fn dyn_clone(&self) -> Box<dyn Comparator> {
        Box::new(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot insta reads from a `.snap` file holding `text`.
    fn snapshot(name: &str, text: &str) -> Snapshot {
        let dir = std::env::temp_dir().join(format!("course-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.snap"));
        std::fs::write(&path, format!("---\nsource: x.rs\n---\n{text}")).unwrap();
        let snap = Snapshot::from_file(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let _ = std::fs::remove_dir(&dir);
        snap
    }

    #[test]
    fn numbers_within_the_tolerance_match_and_others_do_not() {
        let expected = snapshot("expected", "shape (2,)\n[] 1.0000 2.0000\n");
        let near = snapshot("near", "shape (2,)\n[] 1.0000 2.0001\n");
        let far = snapshot("far", "shape (2,)\n[] 1.0000 2.0100\n");
        let reshaped = snapshot("reshaped", "shape (1, 2)\n[0] 1.0000 2.0000\n");
        let tolerant = Tolerant::default();
        assert!(!tolerant.is_exact() && Tolerant::exact().is_exact());
        assert!(tolerant.matches(&expected, &expected));
        assert!(tolerant.matches(&expected, &near));
        assert!(!tolerant.matches(&expected, &far));
        assert!(!tolerant.matches(&expected, &reshaped));
        assert!(Tolerant::exact().matches(&expected, &expected));
        assert!(!Tolerant::exact().matches(&expected, &near));
    }
}
