//! `attention::fast::mha_forward` against a plain composition of the reference pieces:
//! `project`, per-head column slices, `scaled_dot_product` (with the causal mask), merge, `project`,
//! with the kernels picked automatically. A module of `fast_kernels.rs` (not a test executable of
//! its own), which also runs the same checks with each kernel forced.

use attention::attend::{project, scaled_dot_product};
use attention::fast::{Kernel, MhaConfig, mha_forward};
use attention::mask::causal;
use attention::rng::RandomState;
use ndarray::{Array2, Array3, Array4, s};

/// The reference forward: `(output (B, T, D), weights (B, h, T, T))`.
fn reference(
    x: &Array3<f64>,
    w_qkv: &Array2<f64>,
    w_o: &Array2<f64>,
    heads: usize,
    is_causal: bool,
) -> (Array3<f64>, Array4<f64>) {
    let (b, t, d) = x.dim();
    let hs = d / heads;
    let qkv = project(x.view(), w_qkv.view()).unwrap();
    let mask = causal(t, t);
    let mut merged = Array3::<f64>::zeros((b, t, d));
    let mut weights = Array4::<f64>::zeros((b, heads, t, t));
    for i in 0..heads {
        let cols = |block: usize| block * d + i * hs..block * d + (i + 1) * hs;
        let q = qkv.slice(s![.., .., cols(0)]);
        let k = qkv.slice(s![.., .., cols(1)]);
        let v = qkv.slice(s![.., .., cols(2)]);
        let (o, w) = if is_causal {
            scaled_dot_product(q, k, v, Some(&mask.view())).unwrap()
        } else {
            scaled_dot_product::<ndarray::Ix2>(q, k, v, None).unwrap()
        };
        merged.slice_mut(s![.., .., cols(0)]).assign(&o);
        weights.slice_mut(s![.., i, .., ..]).assign(&w);
    }
    (project(merged.view(), w_o.view()).unwrap(), weights)
}

fn inputs(seed: u32, b: usize, t: usize, d: usize) -> (Array3<f64>, Array2<f64>, Array2<f64>) {
    let mut rs = RandomState::new(seed);
    let scale = 1.0 / (d as f64).sqrt();
    let x = rs.randn((b, t, d));
    let w_qkv = rs.randn((d, 3 * d)) * scale;
    let w_o = rs.randn((d, d)) * scale;
    (x, w_qkv, w_o)
}

fn max_abs_diff<D: ndarray::Dimension>(
    a: &ndarray::Array<f64, D>,
    b: &ndarray::Array<f64, D>,
) -> f64 {
    assert_eq!(a.shape(), b.shape());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// Checks the forward with `kernel` asked for on random `(b, t, d)` inputs, with and without
/// the causal mask, against [`reference`]; returns the kernel that ran.
pub(crate) fn check_with(
    kernel: Kernel,
    seed: u32,
    b: usize,
    t: usize,
    d: usize,
    heads: usize,
) -> Kernel {
    let (x, w_qkv, w_o) = inputs(seed, b, t, d);
    let mut ran = Kernel::Auto;
    for is_causal in [false, true] {
        let config = MhaConfig::new(heads)
            .with_causal(is_causal)
            .with_kernel(kernel);
        // Dropped at the end of each round: the causal round of the same shape usually gets the
        // buffers of the unmasked one back from the forward's pool, so its masked zeros are
        // written, not inherited from fresh memory (`recycled_outputs.rs` makes sure of that).
        let out = mha_forward(x.view(), w_qkv.view(), w_o.view(), config).unwrap();
        let (used, y, w) = (out.kernel, &out.output, &out.weights);
        assert_eq!(used, kernel.resolve(), "asked for {kernel:?}");
        ran = used;
        let (y_ref, w_ref) = reference(&x, &w_qkv, &w_o, heads, is_causal);
        let (ey, ew) = (max_abs_diff(y, &y_ref), max_abs_diff(w, &w_ref));
        let case = format!("{used:?}: B={b} T={t} D={d} h={heads} causal={is_causal}");
        assert!(
            ey < 1e-12 && ew < 1e-12,
            "{case}: output diff {ey:e}, weights diff {ew:e}"
        );
        if is_causal {
            for ((_, _, i, j), &v) in w.indexed_iter() {
                assert!(
                    j <= i || v == 0.0,
                    "{case}: weight ({i}, {j}) = {v} above the diagonal"
                );
            }
        }
    }
    ran
}

/// [`check_with`] with [`Kernel::Auto`].
pub(crate) fn check(seed: u32, b: usize, t: usize, d: usize, heads: usize) {
    check_with(Kernel::Auto, seed, b, t, d, heads);
}

#[test]
fn small_inputs_match_the_reference_composition() {
    check(0, 2, 5, 8, 2);
    check(1, 1, 1, 6, 3);
    check(2, 3, 7, 12, 4);
}

#[test]
fn larger_inputs_cover_blocking_and_threads() {
    // D > 512 splits the projections' depth, T > 64 gives several causal blocks, and the
    // sizes are large enough to run on several threads: B = 1 splits phases, B = 3 batches.
    check(3, 1, 70, 528, 4);
    check(4, 3, 33, 80, 5);
}

#[test]
fn transposed_input_is_accepted() {
    let (x, w_qkv, w_o) = inputs(5, 4, 3, 8);
    let xt = x.view().permuted_axes([1, 0, 2]); // (3, 4, 8), not in standard layout
    let config = MhaConfig::new(2).with_causal(true);
    let (y, _) = mha_forward(xt, w_qkv.view(), w_o.view(), config)
        .unwrap()
        .into_parts();
    let (y_ref, _) = reference(&xt.to_owned(), &w_qkv, &w_o, 2, true);
    assert!(max_abs_diff(&y, &y_ref) < 1e-12);
}

#[test]
fn empty_sizes_give_empty_results() {
    for (b, t, d, heads) in [(0, 4, 8, 2), (2, 0, 8, 2), (2, 3, 0, 1)] {
        let x = Array3::<f64>::zeros((b, t, d));
        let (w_qkv, w_o) = (
            Array2::<f64>::zeros((d, 3 * d)),
            Array2::<f64>::zeros((d, d)),
        );
        for is_causal in [false, true] {
            let config = MhaConfig::new(heads).with_causal(is_causal);
            let out = mha_forward(x.view(), w_qkv.view(), w_o.view(), config).unwrap();
            assert_eq!(
                (out.output.dim(), out.weights.dim()),
                ((b, t, d), (b, heads, t, t))
            );
            assert!(out.output.iter().all(|v| *v == 0.0));
        }
    }
}

#[test]
fn shape_errors() {
    let (x, w_qkv, w_o) = inputs(0, 2, 5, 8);
    let err = |heads, wq: &Array2<f64>, wo: &Array2<f64>| {
        mha_forward(x.view(), wq.view(), wo.view(), MhaConfig::new(heads))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(0, &w_qkv, &w_o),
        "mha_forward: expected x (B, T, D) with D divisible by heads > 0, got D = 8, heads = 0"
    );
    assert!(err(3, &w_qkv, &w_o).contains("got D = 8, heads = 3"));
    assert_eq!(
        err(2, &Array2::zeros((8, 16)), &w_o),
        "mha_forward: expected w_qkv (D, 3D) = (8, 24), got (8, 16)"
    );
    assert!(err(2, &w_qkv.t().to_owned(), &w_o).contains("got (24, 8)"));
    assert_eq!(
        err(2, &w_qkv, &Array2::zeros((8, 4))),
        "mha_forward: expected w_o (D, D) = (8, 8), got (8, 4)"
    );
}
