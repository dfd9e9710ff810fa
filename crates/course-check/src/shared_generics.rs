//! `ndarray`'s generic code for the array operations the checks use, compiled once here rather
//! than once in every check executable.
//!
//! A check executable instantiates `ndarray`'s generics for `f64` arrays of its checks' shapes:
//! equality (`assert_eq!` of arrays), clones and views made owned, element-wise arithmetic, sums
//! and means, products, concatenation, `Debug` formatting. Compiled in each of them, that code
//! was about 60% of a check executable's LLVM IR. In unoptimised builds (the grader's lesson
//! builds, `cargo test`'s) rustc lets a crate use the generic instances its dependencies have
//! already compiled (`-Z share-generics`, on by default at `opt-level` 0 and 1), so
//! [`instantiate`] compiles the common ones here, in a crate every check executable depends on,
//! and the check executables link to them instead of compiling their own copies (the figures
//! are in `docs/bench-grade.md`). Nothing calls it; a public function is
//! compiled whether or not it is called.

use ndarray::{Array, ArrayView, Axis, Dimension, Ix1, Ix2, Ix3, Ix4, RemoveAxis};

/// Equality, clones, owned views, element-wise arithmetic with arrays and scalars, sums, means
/// and folds of `f64` arrays of `D` axes, owned and viewed, and their `Debug` text.
fn elementwise<D: Dimension>(a: &Array<f64, D>, b: ArrayView<'_, f64, D>, out: &mut Vec<String>) {
    let c = a.clone();
    let d = b.to_owned();
    out.push(format!("{} {} {}", *a == c, b == c.view(), *a == d));
    let sums = (&c - &d, &c + &d, &c * &d, &c / &d, &c * 2.0, &c / 2.0);
    let owned = (c - &d, d * 2.0, &b - &a.view());
    out.push(format!("{sums:?} {owned:?}"));
    out.push(format!("{} {:?}", a.sum(), a.mean()));
    out.push(format!("{}", a.iter().copied().fold(0.0, f64::max)));
}

/// Sums and means along an axis, and concatenation, of `f64` arrays of `D` axes.
fn along_axes<D: RemoveAxis>(a: &Array<f64, D>, out: &mut Vec<String>) {
    out.push(format!("{:?}", a.sum_axis(Axis(0))));
    out.push(format!("{:?}", a.mean_axis(Axis(0))));
    out.push(format!(
        "{:?}",
        ndarray::concatenate(Axis(0), &[a.view(), a.view()])
    ));
}

/// Compiles the instances above for `f64` arrays of 1 to 4 axes, and matrix-matrix,
/// matrix-vector and vector-vector products, writing what they compute to `out`. Not for
/// calling: see the module's documentation.
#[doc(hidden)]
pub fn instantiate(out: &mut Vec<String>) {
    let a1: Array<f64, Ix1> = Array::zeros(3);
    let a2: Array<f64, Ix2> = Array::zeros((2, 3));
    let a3: Array<f64, Ix3> = Array::zeros((2, 3, 4));
    let a4: Array<f64, Ix4> = Array::zeros((2, 3, 4, 5));
    elementwise(&a1, a1.view(), out);
    elementwise(&a2, a2.view(), out);
    elementwise(&a3, a3.view(), out);
    elementwise(&a4, a4.view(), out);
    along_axes(&a2, out);
    along_axes(&a3, out);
    along_axes(&a4, out);
    out.push(format!("{:?} {:?}", a2.dot(&a2.t()), a2.dot(&a1)));
    out.push(format!("{:?}", a1.dot(&a1)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instances_run() {
        let mut out = Vec::new();
        instantiate(&mut out);
        // Four element-wise groups of four lines, three axis groups of three, two products.
        assert_eq!(out.len(), 4 * 4 + 3 * 3 + 2);
        assert!(out[0].starts_with("true true true"), "{}", out[0]);
    }
}
