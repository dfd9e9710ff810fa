//! Turning tensors into snapshot text.

use check_protocol::Encoding;
use ndarray::{ArrayBase, ArrayViewD, Axis, Data, Dimension};
use std::fmt::Write;

/// How numbers are written in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rendering {
    /// Rounded to 4 decimals; `-0.0000` is written `0.0000`.
    Rounded,
    /// Shortest text that round-trips to the same `f64`.
    Exact,
}

/// Snapshot text of `a` with 4-decimal numbers: see [`Rendering::Rounded`].
///
/// ```
/// let text = course_check::render(&ndarray::array![[1.0, -0.00001], [0.5, 2.0]]);
/// assert_eq!(text, "shape (2, 2)\n[0] 1.0000 0.0000\n[1] 0.5000 2.0000\n");
/// ```
pub fn render<S, D>(a: &ArrayBase<S, D>) -> String
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    render_with(a, Rendering::Rounded)
}

/// Snapshot text of `a` with every number exact: see [`Rendering::Exact`].
pub fn render_exact<S, D>(a: &ArrayBase<S, D>) -> String
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    render_with(a, Rendering::Exact)
}

/// Snapshot text of a labelled tensor (every value encodes its position): [`render_exact`] with
/// the line `encoding <formula>` inserted right after the `shape` line, so that
/// [`explain_difference`](crate::explain_difference) decodes a wrong value into the position it
/// came from (see [`Encoding`]). This is what `assert_exact_snapshot!(name, a, encoding = "…")`
/// writes.
///
/// ```
/// let x = ndarray::Array2::from_shape_fn((2, 2), |(t, c)| (t * 100 + c) as f64);
/// assert_eq!(
///     course_check::render_exact_encoded(&x, "t*100 + c"),
///     "shape (2, 2)\nencoding t*100 + c\n[0] 0 1\n[1] 100 101\n"
/// );
/// ```
///
/// # Panics
///
/// When `formula` is not an encoding [`Encoding::parse`] accepts: that is a bug in the check.
pub fn render_exact_encoded<S, D>(a: &ArrayBase<S, D>, formula: &str) -> String
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    let formula = formula.trim();
    assert!(
        Encoding::parse(formula).is_some(),
        "course-check: the encoding `{formula}` of an exact snapshot does not parse (write it \
         like `b*10000 + t*100 + c`: `name*weight` terms joined by `+`, distinct non-zero \
         weights, a bare name for weight 1); this is a bug in the check, not in the code under test"
    );
    let text = render_exact(a);
    let (shape, rows) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    format!("{shape}\nencoding {formula}\n{rows}")
}

fn number(v: f64, how: Rendering) -> String {
    match how {
        Rendering::Rounded => {
            let s = format!("{v:.4}");
            if s == "-0.0000" {
                "0.0000".to_owned()
            } else {
                s
            }
        }
        Rendering::Exact => {
            if v == 0.0 {
                "0".to_owned()
            } else {
                format!("{v}")
            }
        }
    }
}

/// Generic only in the array's type: each rendered array type of a check executable is a copy
/// of this, so the work is in [`render_view`], compiled once.
fn render_with<S, D>(a: &ArrayBase<S, D>, how: Rendering) -> String
where
    S: Data<Elem = f64>,
    D: Dimension,
{
    render_view(a.view().into_dyn(), how)
}

/// The snapshot text of `a`: its `shape` line, then one line per last-axis row, labelled with
/// the row's leading indices.
fn render_view(a: ArrayViewD<'_, f64>, how: Rendering) -> String {
    let shape = a.shape();
    let mut out = format!("shape {}\n", attention::error::shape_string(shape));
    if a.ndim() == 0 {
        let _ = writeln!(out, "{}", number(a[[]], how));
        return out;
    }
    let last = Axis(a.ndim() - 1);
    let leading: Vec<usize> = shape[..shape.len() - 1].to_vec();
    for (n, row) in a.lanes(last).into_iter().enumerate() {
        let mut idx = vec![0usize; leading.len()];
        let mut rest = n;
        for (k, &len) in leading.iter().enumerate().rev() {
            idx[k] = rest % len.max(1);
            rest /= len.max(1);
        }
        let label: Vec<String> = idx.iter().map(usize::to_string).collect();
        out.push('[');
        out.push_str(&label.join(","));
        out.push(']');
        for v in row {
            out.push(' ');
            out.push_str(&number(*v, how));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array3, arr0, array};

    #[test]
    fn rows_are_labelled_by_leading_index() {
        let a = Array3::from_shape_fn((2, 1, 2), |(i, j, k)| (i * 10 + j + k) as f64);
        assert_eq!(
            render_exact(&a),
            "shape (2, 1, 2)\n[0,0] 0 1\n[1,0] 10 11\n"
        );
    }

    #[test]
    fn rounding_never_writes_negative_zero() {
        assert_eq!(
            render(&array![-0.0, -0.00004, 0.12345]),
            "shape (3,)\n[] 0.0000 0.0000 0.1235\n"
        );
        assert_eq!(render(&arr0(2.5)), "shape ()\n2.5000\n");
    }

    #[test]
    fn exact_keeps_every_digit() {
        assert_eq!(
            render_exact(&array![0.1, -3.0, 1e-20]),
            "shape (3,)\n[] 0.1 -3 0.00000000000000000001\n"
        );
    }
}
