//! Comparing snapshot text with a numeric tolerance, and explaining the first difference.

use insta::internals::SnapshotContents;
use insta::{Comparator, Snapshot};
use ndarray::{AsArray, Dimension};

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
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Largest absolute difference accepted between two rounded numbers: a value that sits on a
/// rounding boundary may print one unit of the 4th decimal away in another correct implementation.
pub const TOLERANCE: f64 = 1.5e-4;

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

/// `None` when `got` matches `expected` (numbers within `tolerance`), otherwise a one-line
/// explanation: a different shape, or the first differing element with its NumPy-style index.
///
/// ```
/// let e = "shape (2, 2)\n[0] 1.0000 2.0000\n[1] 3.0000 4.0000\n";
/// let g = "shape (2, 2)\n[0] 1.0000 2.0000\n[1] 3.0000 4.5000\n";
/// assert_eq!(
///     course_check::explain_difference(e, g, 1e-4).unwrap(),
///     "values differ: first at index [1, 1]: expected 4.0000, got 4.5000 (1 of 4 values differ)"
/// );
/// assert!(course_check::explain_difference(e, e, 0.0).is_none());
/// ```
pub fn explain_difference(expected: &str, got: &str, tolerance: f64) -> Option<String> {
    let mut e_lines = expected.trim_end().lines();
    let mut g_lines = got.trim_end().lines();
    let (e_head, g_head) = (e_lines.next().unwrap_or(""), g_lines.next().unwrap_or(""));
    if e_head.starts_with("shape ") && e_head != g_head {
        let g_shape = g_head.strip_prefix("shape ").unwrap_or(g_head);
        return Some(format!(
            "wrong shape: expected {}, got {g_shape}",
            &e_head["shape ".len()..]
        ));
    }
    if e_head != g_head {
        return Some(format!("expected `{e_head}`, got `{g_head}`"));
    }
    let e_rows: Vec<&str> = e_lines.collect();
    let g_rows: Vec<&str> = g_lines.collect();
    if e_rows.len() != g_rows.len() {
        return Some(format!(
            "expected {} lines, got {}",
            e_rows.len() + 1,
            g_rows.len() + 1
        ));
    }
    let mut first: Option<String> = None;
    let (mut differing, mut total) = (0usize, 0usize);
    for (e_row, g_row) in e_rows.iter().zip(&g_rows) {
        let e_tok: Vec<&str> = e_row.split_whitespace().collect();
        let g_tok: Vec<&str> = g_row.split_whitespace().collect();
        if e_tok.len() != g_tok.len() {
            return Some(format!("expected `{e_row}`, got `{g_row}`"));
        }
        let label = e_tok.first().copied().filter(|t| t.starts_with('['));
        let skip = usize::from(label.is_some());
        for (col, (e, g)) in e_tok.iter().zip(&g_tok).enumerate().skip(skip) {
            total += 1;
            let same = match (e.parse::<f64>(), g.parse::<f64>()) {
                (Ok(a), Ok(b)) => (a - b).abs() <= tolerance || a.to_bits() == b.to_bits(),
                _ => e == g,
            };
            if !same {
                differing += 1;
                if first.is_none() {
                    let index = match label {
                        Some(l) => {
                            let inner = l.trim_start_matches('[').trim_end_matches(']');
                            let mut parts: Vec<String> = inner
                                .split(',')
                                .filter(|p| !p.is_empty())
                                .map(str::to_owned)
                                .collect();
                            parts.push((col - skip).to_string());
                            format!("[{}]", parts.join(", "))
                        }
                        None => format!("item {}", col + 1),
                    };
                    first = Some(format!("first at index {index}: expected {e}, got {g}"));
                }
            }
        }
    }
    first.map(|f| format!("values differ: {f} ({differing} of {total} values differ)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: &str = "shape (1, 2, 2)\n[0,0] 0.1000 0.2000\n[0,1] 0.3000 0.4000\n";

    #[test]
    fn within_tolerance_passes_and_beyond_fails() {
        let near = E.replace("0.4000", "0.4001");
        assert!(explain_difference(E, &near, TOLERANCE).is_none());
        assert!(explain_difference(E, &near, 0.0).is_some());
        let far = E.replace("0.3000", "0.3100");
        assert_eq!(
            explain_difference(E, &far, TOLERANCE).unwrap(),
            "values differ: first at index [0, 1, 0]: expected 0.3000, got 0.3100 (1 of 4 values differ)"
        );
    }

    #[test]
    fn shape_mismatch_is_reported_first() {
        let g = "shape (1, 1, 4)\n[0,0] 0.1000 0.2000 0.3000 0.4000\n";
        assert_eq!(
            explain_difference(E, g, TOLERANCE).unwrap(),
            "wrong shape: expected (1, 2, 2), got (1, 1, 4)"
        );
    }

    #[test]
    fn words_compare_exactly() {
        assert!(explain_difference("a b", "a c", 1.0).is_some());
        assert!(explain_difference("a b", "a b", 0.0).is_none());
    }
}
