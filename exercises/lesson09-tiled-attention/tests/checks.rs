//! The checks of lesson 9, shared by the exercise crate (`lesson09`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//!
//! The forward is compared with the core crate's attention (`attention::attend`, lesson 3's), its
//! logsumexp with one written out here; the gradients with central finite differences in f64,
//! computed here, of that attention and of your own tiled forward. The memory a call needs is
//! measured by this file's global allocator (`course_check::memory::PeakMeter`), which counts
//! every byte your code allocates.

use attention::attend::scaled_dot_product;
use attention::rng::RandomState;
use attention::softmax::softmax_row;
use course_check::memory::PeakMeter;
use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, max_abs_diff, property};
use lesson09::setup::{B, H, HS, T, TILE};
use lesson09::*;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView1, ArrayView4, Axis, array, s};

/// Counts what every call allocates (see `tiled_attention_never_holds_t_by_t`).
#[global_allocator]
static METER: PeakMeter = PeakMeter::new();

/// Central differences step: small enough that the error `ε²/6 · f'''` is about 1e-11, large
/// enough that rounding, about `1e-16 · |L| / ε`, stays near 1e-10.
const EPS: f64 = 1e-5;
/// How far an analytic gradient may be from central differences: a thousand times the
/// differences' own error, a millionth of the gradients' size (about 1).
const GRAD_TOL: f64 = 1e-6;

/// Query `i` of `t` may read key `j` of `s`: always without the mask, `j + t <= i + s` with it
/// (the causal mask aligned to the bottom right), written out here.
fn allowed(i: usize, j: usize, (t, s): (usize, usize), causal: bool) -> bool {
    !causal || j + t <= i + s
}

/// Lesson 3's attention, by the core crate, and each row's logsumexp written out here:
/// `q (B, h, T, hs)`, `k (B, h, S, hs)`, `v (B, h, S, hv)` give `(out (B, h, T, hv),
/// lse (B, h, T))`, `lse = −∞` for a row that reads no key.
fn plain_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    causal: bool,
) -> (Array4<f64>, Array3<f64>) {
    let (b, h, t, hs) = q.dim();
    let (s_len, hv) = (k.dim().2, v.dim().3);
    let mask = Array2::from_shape_fn((t, s_len), |(i, j)| allowed(i, j, (t, s_len), causal));
    let mut out = Array4::zeros((b, h, t, hv));
    let mut lse = Array3::from_elem((b, h, t), f64::NEG_INFINITY);
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let (qh, kh) = (q.slice(s![bi, hi, .., ..]), k.slice(s![bi, hi, .., ..]));
        let (o, _) = scaled_dot_product(
            qh.insert_axis(Axis(0)),
            kh.insert_axis(Axis(0)),
            v.slice(s![bi, hi, .., ..]).insert_axis(Axis(0)),
            Some(&mask.view()),
        )
        .unwrap();
        out.slice_mut(s![bi, hi, .., ..])
            .assign(&o.index_axis(Axis(0), 0));
        for i in 0..t {
            let scores: Vec<f64> = (0..s_len)
                .filter(|&j| mask[[i, j]])
                .map(|j| qh.row(i).dot(&kh.row(j)) / (hs as f64).sqrt())
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if max > f64::NEG_INFINITY {
                lse[[bi, hi, i]] = max + scores.iter().map(|x| (x - max).exp()).sum::<f64>().ln();
            }
        }
    }
    (out, lse)
}

/// Random `(q, k, v, d_out)`: `(B, h, T, hs)`, `(B, h, S, hs)`, `(B, h, S, hv)`, `(B, h, T, hv)`.
fn random_inputs(rng: &mut RandomState, (b, h, t, s_len, hs, hv): Sizes) -> [Array4<f64>; 4] {
    [
        rng.randn((b, h, t, hs)),
        rng.randn((b, h, s_len, hs)),
        rng.randn((b, h, s_len, hv)),
        rng.randn((b, h, t, hv)),
    ]
}

/// A forward pass as [`numerical_grads`] differentiates it: `(q, k, v) -> output`.
type Forward<'a> = dyn Fn(&Array4<f64>, &Array4<f64>, &Array4<f64>) -> Array4<f64> + 'a;

/// Central differences of `L = Σ forward(q, k, v) ∘ d_out` with respect to every entry of
/// `q`, `k` and `v`: `(L(x + ε) − L(x − ε)) / 2ε`.
fn numerical_grads(forward: &Forward, [q, k, v, d_out]: &[Array4<f64>; 4]) -> [Array4<f64>; 3] {
    let mut inputs = [q.clone(), k.clone(), v.clone()];
    let mut grads = [
        Array4::zeros(q.raw_dim()),
        Array4::zeros(k.raw_dim()),
        Array4::zeros(v.raw_dim()),
    ];
    for which in 0..3 {
        for n in 0..inputs[which].len() {
            let x = inputs[which].as_slice().unwrap()[n];
            let mut loss_at = |value: f64| {
                inputs[which].as_slice_mut().unwrap()[n] = value;
                (forward(&inputs[0], &inputs[1], &inputs[2]) * d_out).sum()
            };
            let (up, down) = (loss_at(x + EPS), loss_at(x - EPS));
            loss_at(x);
            grads[which].as_slice_mut().unwrap()[n] = (up - down) / (2.0 * EPS);
        }
    }
    grads
}

/// `Ok` when `got`'s `dq`, `dk`, `dv` are each within `tol` of `expected`'s; otherwise which one
/// is off, by how much, and where.
fn grads_close(expected: &[Array4<f64>; 3], got: &Grads, tol: f64) -> Result<(), String> {
    for ((name, e), g) in ["dq", "dk", "dv"]
        .iter()
        .zip(expected)
        .zip([&got.dq, &got.dk, &got.dv])
    {
        if e.shape() != g.shape() {
            return Err(format!(
                "{name} has shape {:?}, expected {:?}",
                g.shape(),
                e.shape()
            ));
        }
        let (at, diff) = e.indexed_iter().map(|(i, x)| (i, (x - g[i]).abs())).fold(
            ((0, 0, 0, 0), 0.0),
            |m, d| {
                if d.1 > m.1 || d.1.is_nan() { d } else { m }
            },
        );
        if diff.is_nan() || diff > tol {
            return Err(format!(
                "{name} is off by {diff:e} at index {at:?}: expected {}, got {}",
                e[at], g[at]
            ));
        }
    }
    Ok(())
}

/// The plain forward's output, as a function for [`numerical_grads`].
fn plain_out(causal: bool) -> impl Fn(&Array4<f64>, &Array4<f64>, &Array4<f64>) -> Array4<f64> {
    move |q, k, v| plain_attention(q.view(), k.view(), v.view(), causal).0
}

/// Folds `row` chunk by chunk through `online_softmax_update`, from the empty state.
fn fold_chunks(row: &[f64], chunk: usize) -> RowState {
    row.chunks(chunk).fold(RowState::EMPTY, |state, c| {
        online_softmax_update(state, Array1::from(c.to_vec()).view())
    })
}

/// The softmax a state gives the row it was folded from: `exp(x − max) / sum`.
fn softmax_from(state: RowState, row: &[f64]) -> Array1<f64> {
    Array1::from_iter(row.iter().map(|x| (x - state.max).exp() / state.sum))
}

// ---- online_softmax_update ---------------------------------------------------------------------

#[test]
fn online_softmax_update_by_hand() {
    let _proof = course_check::proof();
    let first = online_softmax_update(RowState::EMPTY, array![1.0, 2.0].view());
    assert!(
        first.max == 2.0 && (first.sum - (1.0 + (-1.0f64).exp())).abs() < 1e-12,
        "from EMPTY, [1, 2] gives max 2 and sum e^-1 + e^0 = 1.3679, got {first:?}"
    );
    let second = online_softmax_update(first, array![4.0, 0.0].view());
    let expected = (1.0 + (-1.0f64).exp()) * (-2.0f64).exp() + 1.0 + (-4.0f64).exp();
    assert!(
        second.max == 4.0 && (second.sum - expected).abs() < 1e-12,
        "then [4, 0]: max 4 and sum 1.3679 · e^(2 − 4) + e^0 + e^-4 = {expected:.6}, got {second:?}"
    );
    let third = online_softmax_update(second, array![3.0].view());
    assert!(
        third.max == 4.0 && (third.sum - expected - (-1.0f64).exp()).abs() < 1e-12,
        "then [3], below the max: the max stays 4 and e^-1 is added, got {third:?}"
    );
}

#[test]
fn online_softmax_update_every_chunking() {
    let _proof = course_check::proof();
    let ninf = f64::NEG_INFINITY;
    let row = [ninf, ninf, 0.5, 3.0, -1.0, 800.0, ninf, 799.0, 2.0];
    let mut expected = row.to_vec();
    softmax_row(&mut expected);
    let lse = 800.0 + (1.0 + (-1.0f64).exp()).ln();
    for chunk in 1..=row.len() {
        let state = fold_chunks(&row, chunk);
        let got = softmax_from(state, &row);
        let diff = max_abs_diff(&got, &Array1::from(expected.clone()));
        assert!(
            diff < 1e-12,
            "chunks of {chunk}: exp(x − max) / sum differs from the softmax by {diff:e} (state {state:?})"
        );
        assert!(
            (state.logsumexp() - lse).abs() < 1e-9,
            "chunks of {chunk}: max + ln(sum) = {} instead of log Σ exp(x) = {lse}",
            state.logsumexp()
        );
    }
}

#[test]
fn online_softmax_update_masked_chunks() {
    let _proof = course_check::proof();
    let ninf = f64::NEG_INFINITY;
    let masked = online_softmax_update(RowState::EMPTY, array![ninf, ninf].view());
    assert_eq!(
        masked,
        RowState::EMPTY,
        "a chunk of masked scores on an empty row changes nothing (and is not NaN)"
    );
    let one = online_softmax_update(masked, array![1.5].view());
    assert_eq!(one, RowState { max: 1.5, sum: 1.0 }, "then one score");
    let after = online_softmax_update(one, array![ninf].view());
    assert_eq!(after, one, "a masked score later adds exp(−∞) = 0");
}

#[test]
fn online_softmax_update_property() {
    let _proof = course_check::proof();
    property::check(
        "folding a row's chunks through online_softmax_update gives its softmax and logsumexp",
        &[("n", 9), ("chunk", 5), ("masked", 4)],
        |case| {
            let (n, chunk) = (case["n"], case["chunk"]);
            let masked = (case["masked"] - 1).min(n - 1);
            let mut row = case.array(n).mapv(|x| 5.0 * x).to_vec();
            row[..masked].fill(f64::NEG_INFINITY);
            let state = fold_chunks(&row, chunk);
            let mut expected = row.clone();
            softmax_row(&mut expected);
            let at = |why| format!("chunks of {chunk}, {masked} masked first: {why}");
            property::close(&Array1::from(expected), &softmax_from(state, &row)).map_err(at)?;
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lse = max + row.iter().map(|x| (x - max).exp()).sum::<f64>().ln();
            property::close(&array![lse], &array![state.logsumexp()])
                .map_err(|why| at(format!("the logsumexp: {why}")))
        },
    );
}

// ---- tiled_attention ---------------------------------------------------------------------------

#[test]
fn tiled_attention_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (out, lse) = tiled_attention(
        ex.q.view(),
        ex.k.view(),
        ex.v.view(),
        Tiling::new(TILE, TILE, true),
    )
    .unwrap();
    assert_eq!(out.shape(), &[B, H, T, HS], "(B, h, T, hv)");
    assert_eq!(
        lse.shape(),
        &[B, H, T],
        "(B, h, T): one logsumexp per query"
    );
    assert_close_snapshot!("tiled_worked_out", out);
    assert_close_snapshot!("tiled_worked_lse", lse);
}

#[test]
fn tiled_attention_equals_plain_attention() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(3);
    for (shape, causal) in [
        ((1, 2, 5, 5, 4, 3), true),
        ((2, 1, 6, 4, 3, 2), false),
        ((1, 2, 6, 3, 4, 4), true),
    ] {
        let [q, k, v, _] = random_inputs(&mut rng, shape);
        let (t, s_len) = (shape.2, shape.3);
        let (out, lse) = plain_attention(q.view(), k.view(), v.view(), causal);
        for (qt, kt) in (1..=t).flat_map(|a| (1..=s_len).map(move |b| (a, b))) {
            let tiling = Tiling::new(qt, kt, causal);
            let (got, got_lse) = tiled_attention(q.view(), k.view(), v.view(), tiling).unwrap();
            let diff = max_abs_diff(&got, &out);
            assert!(
                diff < 1e-12,
                "(B, h, T, S, hs, hv) = {shape:?}, causal = {causal}, tiles {qt} × {kt}: the output \
                 differs from lesson 3's attention by {diff:e}"
            );
            let same = lse
                .iter()
                .zip(&got_lse)
                .all(|(e, g)| e == g || (e - g).abs() < 1e-12);
            assert!(
                same,
                "{shape:?}, causal = {causal}, tiles {qt} × {kt}: lse should be {lse}, got {got_lse}"
            );
        }
    }
}

#[test]
fn tiled_attention_fully_masked_rows() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(4);
    // 6 queries, 2 keys, causal: queries 0..4 come before every key and read none.
    let [q, k, v, _] = random_inputs(&mut rng, (1, 1, 6, 2, 3, 3));
    let (expected, _) = plain_attention(q.view(), k.view(), v.view(), true);
    for (qt, kt) in [(4, 1), (2, 2), (1, 1), (6, 2)] {
        let tiling = Tiling::new(qt, kt, true);
        let (out, lse) = tiled_attention(q.view(), k.view(), v.view(), tiling).unwrap();
        assert!(
            out.iter().chain(&lse).all(|x| !x.is_nan()),
            "tiles {qt} × {kt}: NaN in the output or lse (exp(−∞ − (−∞)), or 0 / 0): {out}"
        );
        assert!(
            out.slice(s![.., .., ..4, ..]).iter().all(|&x| x == 0.0)
                && lse
                    .slice(s![.., .., ..4])
                    .iter()
                    .all(|&x| x == f64::NEG_INFINITY),
            "tiles {qt} × {kt}: queries 0..4 read no key: output 0 and lse −∞, got {out} and {lse}"
        );
        let diff = max_abs_diff(&out, &expected);
        assert!(
            diff < 1e-12,
            "tiles {qt} × {kt}: queries 4 and 5 are off by {diff:e}"
        );
    }
}

#[test]
fn tiled_attention_logsumexp() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(5);
    let [q, k, v, _] = random_inputs(&mut rng, (1, 2, 5, 7, 4, 2));
    // Scores in the hundreds: exp overflows unless each row is shifted by its maximum.
    let q = q * 300.0;
    let (_, expected) = plain_attention(q.view(), k.view(), v.view(), false);
    let (_, lse) = tiled_attention(q.view(), k.view(), v.view(), Tiling::new(2, 3, false)).unwrap();
    let diff = max_abs_diff(&lse, &expected);
    assert!(
        diff < 1e-9,
        "lse must be log Σ_j exp(score_j) = m + ln l after the last key tile: off by {diff:e}"
    );
    // hs = 4: the scores are q · k / 2.
    let score = |b: usize, t: usize, j: usize| {
        let (qr, kr): (ArrayView1<f64>, ArrayView1<f64>) =
            (q.slice(s![0, b, t, ..]), k.slice(s![0, b, j, ..]));
        qr.dot(&kr) / 2.0
    };
    for (b, t) in (0..2).flat_map(|b| (0..5).map(move |t| (b, t))) {
        let total: f64 = (0..7)
            .map(|j| (score(b, t, j) - lse[[0, b, t]]).exp())
            .sum();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "head {b}, query {t}: Σ_j exp(score_j − lse) = {total}, not 1"
        );
    }
}

#[test]
fn tiled_attention_never_holds_t_by_t() {
    let _proof = course_check::proof();
    let (t, hs) = (384, 4);
    let mut rng = RandomState::new(6);
    let [q, k, v, _] = random_inputs(&mut rng, (1, 1, t, t, hs, hs));
    let t_by_t = t * t * std::mem::size_of::<f64>();
    let (_, plain) = METER.peak_during(|| plain_attention(q.view(), k.view(), v.view(), true));
    assert!(
        plain >= t_by_t,
        "the meter sees lesson 3's attention hold its (T, T) weights: {plain} bytes"
    );
    // Three calls, each on inputs of its own (no call can return an earlier one's result), each
    // on a stack smaller than the bound (an array kept there overflows it); `judged` says which
    // call's figure counts (the largest under the grader, the least under `cargo test`).
    let bound = t_by_t / 4;
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let [q, k, v, _] = random_inputs(&mut rng, (1, 1, t, t, hs, hs));
            let tiling = Tiling::new(32, 32, true);
            METER.peak_on_stack(
                "tiled_attention, on a stack of a quarter of a (T, T) array",
                bound,
                || tiled_attention(q.view(), k.view(), v.view(), tiling),
            )
        })
        .collect();
    let held: Vec<usize> = calls.iter().map(|(_, held)| *held).collect();
    let extra = course_check::memory::judged(&held);
    assert!(
        calls.iter().all(|(result, _)| result.is_ok()),
        "T = S = {t}, hs = {hs}, tiles 32 × 32"
    );
    assert!(
        extra < bound,
        "T = S = {t}, tiles 32 × 32: your tiled_attention held {extra} bytes at once; a (T, T) \
         array of f64 is {t_by_t}, and the reference needs about 35000 (output, lse, one tile of scores)"
    );
}

#[test]
fn tiled_attention_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let q = Array4::<f64>::zeros((1, 2, 3, 4));
    let kv = Array4::<f64>::zeros((1, 2, 5, 4));
    let fine = Tiling::new(2, 2, false);
    for (k, v, tiling, what) in [
        (
            Array4::zeros((1, 2, 5, 3)),
            kv.clone(),
            fine,
            "keys of hs = 3 for queries of hs = 4",
        ),
        (
            Array4::zeros((1, 1, 5, 4)),
            kv.clone(),
            fine,
            "keys of 1 head for queries of 2",
        ),
        (
            kv.clone(),
            Array4::zeros((1, 2, 4, 4)),
            fine,
            "4 values for 5 keys",
        ),
        (
            kv.clone(),
            kv.clone(),
            Tiling::new(0, 2, false),
            "tiles of 0 queries",
        ),
        (
            kv.clone(),
            kv.clone(),
            Tiling::new(2, 0, true),
            "tiles of 0 keys",
        ),
    ] {
        assert!(
            tiled_attention(q.view(), k.view(), v.view(), tiling).is_err(),
            "{what}"
        );
    }
}

#[test]
fn tiled_attention_property() {
    let _proof = course_check::proof();
    property::check(
        "tiled_attention(q, k, v, tiles) == lesson 3's attention and its logsumexp, for every tile size",
        &[
            ("B", 2),
            ("h", 2),
            ("T", 6),
            ("S", 6),
            ("hs", 3),
            ("hv", 3),
            ("q_tile", 4),
            ("k_tile", 4),
            ("causal", 2),
        ],
        |case| {
            let (b, h, t, s_len) = (case["B"], case["h"], case["T"], case["S"]);
            let (hs, hv, causal) = (case["hs"], case["hv"], case["causal"] == 2);
            let (q, k, v) = (
                case.array((b, h, t, hs)),
                case.array((b, h, s_len, hs)),
                case.array((b, h, s_len, hv)),
            );
            let tiling = Tiling::new(case["q_tile"], case["k_tile"], causal);
            let (out, lse) =
                tiled_attention(q.view(), k.view(), v.view(), tiling).map_err(case.error())?;
            let (expected, expected_lse) = plain_attention(q.view(), k.view(), v.view(), causal);
            let at = |why| format!("causal = {causal}: {why}");
            property::close(&expected, &out).map_err(at)?;
            // −∞ where a row reads nothing: compared as a large negative number (NaN stays NaN).
            let finite =
                |a: &Array3<f64>| a.mapv(|x| if x == f64::NEG_INFINITY { -1e300 } else { x });
            property::close(&finite(&expected_lse), &finite(&lse))
                .map_err(|why| at(format!("the logsumexp: {why}")))
        },
    );
}

// ---- attention_backward ------------------------------------------------------------------------

/// Sizes `(B, h, T, S, hs, hv)`.
type Sizes = (usize, usize, usize, usize, usize, usize);

/// Shapes and masks the gradient checks use.
const GRAD_CASES: [(Sizes, bool); 3] = [
    ((1, 2, 4, 4, 3, 2), true),
    ((2, 1, 3, 5, 4, 3), false),
    ((1, 1, 5, 3, 2, 2), true),
];

#[test]
fn attention_backward_matches_finite_differences() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(7);
    for (shape, causal) in GRAD_CASES {
        let inputs = random_inputs(&mut rng, shape);
        let [q, k, v, d_out] = &inputs;
        let grads = attention_backward(q.view(), k.view(), v.view(), d_out.view(), causal).unwrap();
        let numeric = numerical_grads(&plain_out(causal), &inputs);
        let verdict = grads_close(&numeric, &grads, GRAD_TOL);
        assert!(
            verdict.is_ok(),
            "(B, h, T, S, hs, hv) = {shape:?}, causal = {causal}, against central differences \
             of lesson 3's attention: {}",
            verdict.unwrap_err()
        );
    }
}

#[test]
fn attention_backward_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let g =
        attention_backward(ex.q.view(), ex.k.view(), ex.v.view(), ex.d_out.view(), true).unwrap();
    assert_eq!(g.dq.shape(), &[B, H, T, HS], "dq has q's shape");
    assert_close_snapshot!("backward_worked_dq", g.dq);
    assert_close_snapshot!("backward_worked_dk", g.dk);
    assert_close_snapshot!("backward_worked_dv", g.dv);
}

#[test]
fn attention_backward_key_gradients_sum_to_zero() {
    let _proof = course_check::proof();
    // Adding one vector c to every key adds q_i · c / √hs to every score of row i: the softmax
    // does not change, so neither does the loss, and Σ_j dK_j = 0 for every head.
    let mut rng = RandomState::new(8);
    for (shape, causal) in GRAD_CASES {
        let [q, k, v, d_out] = random_inputs(&mut rng, shape);
        let g = attention_backward(q.view(), k.view(), v.view(), d_out.view(), causal).unwrap();
        let total = g.dk.sum_axis(Axis(2));
        let largest = total.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(
            largest < 1e-12,
            "{shape:?}, causal = {causal}: Σ_j dK[b, i, j] should be 0 (shifting every key \
             together changes nothing), got {total}"
        );
    }
}

#[test]
fn attention_backward_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let q = Array4::<f64>::zeros((1, 2, 3, 4));
    let kv = Array4::<f64>::zeros((1, 2, 5, 4));
    let d_out = Array4::<f64>::zeros((1, 2, 3, 4));
    for (k, d, what) in [
        (
            Array4::zeros((1, 2, 5, 2)),
            d_out.clone(),
            "keys of hs = 2 for queries of hs = 4",
        ),
        (
            kv.clone(),
            Array4::zeros((1, 2, 5, 4)),
            "d_out of 5 rows for 3 queries",
        ),
        (
            kv.clone(),
            Array4::zeros((1, 2, 3, 2)),
            "d_out of width 2 for values of width 4",
        ),
    ] {
        assert!(
            attention_backward(q.view(), k.view(), kv.view(), d.view(), false).is_err(),
            "{what}"
        );
    }
}

#[test]
fn attention_backward_property() {
    let _proof = course_check::proof();
    property::check(
        "attention_backward(q, k, v, dO) == central differences of Σ attention(q, k, v) ∘ dO",
        &[
            ("B", 2),
            ("h", 2),
            ("T", 4),
            ("S", 4),
            ("hs", 3),
            ("hv", 2),
            ("causal", 2),
        ],
        |case| {
            let (b, h, t, s_len) = (case["B"], case["h"], case["T"], case["S"]);
            let (hs, hv, causal) = (case["hs"], case["hv"], case["causal"] == 2);
            let inputs = [
                case.array((b, h, t, hs)),
                case.array((b, h, s_len, hs)),
                case.array((b, h, s_len, hv)),
                case.array((b, h, t, hv)),
            ];
            let [q, k, v, d_out] = &inputs;
            let g = attention_backward(q.view(), k.view(), v.view(), d_out.view(), causal)
                .map_err(case.error())?;
            grads_close(&numerical_grads(&plain_out(causal), &inputs), &g, GRAD_TOL)
                .map_err(|why| format!("causal = {causal}: {why}"))
        },
    );
}

// ---- tiled_attention_backward ------------------------------------------------------------------

/// `tiled_attention_backward` with the output and logsumexp of the plain forward.
fn tiled_backward_of(
    [q, k, v, d_out]: &[Array4<f64>; 4],
    tiling: Tiling,
) -> attention::Result<Grads> {
    let (out, lse) = plain_attention(q.view(), k.view(), v.view(), tiling.causal);
    tiled_attention_backward(
        q.view(),
        k.view(),
        v.view(),
        out.view(),
        lse.view(),
        d_out.view(),
        tiling,
    )
}

#[test]
fn tiled_attention_backward_matches_finite_differences() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(9);
    for (shape, causal) in GRAD_CASES {
        let inputs = random_inputs(&mut rng, shape);
        let tiling = Tiling::new(2, 3, causal);
        let grads = tiled_backward_of(&inputs, tiling).unwrap();
        let verdict = grads_close(
            &numerical_grads(&plain_out(causal), &inputs),
            &grads,
            GRAD_TOL,
        );
        assert!(
            verdict.is_ok(),
            "(B, h, T, S, hs, hv) = {shape:?}, causal = {causal}, tiles 2 × 3, against central \
             differences of lesson 3's attention: {}",
            verdict.unwrap_err()
        );
    }
}

#[test]
fn tiled_attention_backward_matches_own_forward() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(10);
    for (shape, causal) in GRAD_CASES {
        let inputs = random_inputs(&mut rng, shape);
        let [q, k, v, d_out] = &inputs;
        let tiling = Tiling::new(3, 2, causal);
        let (out, lse) = tiled_attention(q.view(), k.view(), v.view(), tiling).unwrap();
        let grads = tiled_attention_backward(
            q.view(),
            k.view(),
            v.view(),
            out.view(),
            lse.view(),
            d_out.view(),
            tiling,
        )
        .unwrap();
        let own = |q: &Array4<f64>, k: &Array4<f64>, v: &Array4<f64>| {
            tiled_attention(q.view(), k.view(), v.view(), tiling)
                .unwrap()
                .0
        };
        let verdict = grads_close(&numerical_grads(&own, &inputs), &grads, GRAD_TOL);
        assert!(
            verdict.is_ok(),
            "{shape:?}, causal = {causal}, tiles 3 × 2, against central differences of your own \
             tiled_attention, from its own output and lse: {}",
            verdict.unwrap_err()
        );
    }
}

#[test]
fn tiled_attention_backward_equals_plain_backward() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(11);
    for (shape, causal) in GRAD_CASES {
        let inputs = random_inputs(&mut rng, shape);
        let [q, k, v, d_out] = &inputs;
        let plain = attention_backward(q.view(), k.view(), v.view(), d_out.view(), causal).unwrap();
        let expected = [plain.dq, plain.dk, plain.dv];
        for (qt, kt) in (1..=shape.2).flat_map(|a| (1..=shape.3).map(move |b| (a, b))) {
            let tiled = tiled_backward_of(&inputs, Tiling::new(qt, kt, causal)).unwrap();
            let verdict = grads_close(&expected, &tiled, 1e-12);
            assert!(
                verdict.is_ok(),
                "{shape:?}, causal = {causal}, tiles {qt} × {kt}: the tiled gradients differ \
                 from attention_backward's: {}",
                verdict.unwrap_err()
            );
        }
    }
}

#[test]
fn tiled_attention_backward_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let inputs = [ex.q, ex.k, ex.v, ex.d_out];
    let g = tiled_backward_of(&inputs, Tiling::new(TILE, TILE, true)).unwrap();
    assert_close_snapshot!("tiled_backward_worked_dq", g.dq);
    assert_close_snapshot!("tiled_backward_worked_dk", g.dk);
    assert_close_snapshot!("tiled_backward_worked_dv", g.dv);
}

#[test]
fn tiled_attention_backward_fully_masked_rows() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(12);
    // 5 queries, 2 keys, causal: queries 0..3 read nothing, their lse is −∞.
    let inputs = random_inputs(&mut rng, (1, 1, 5, 2, 3, 2));
    let g = tiled_backward_of(&inputs, Tiling::new(2, 1, true)).unwrap();
    assert!(
        g.dq.iter().chain(&g.dk).chain(&g.dv).all(|x| x.is_finite()),
        "queries that read no key have lse = −∞: exp(score − lse) there must be 0, not NaN or ∞"
    );
    assert!(
        g.dq.slice(s![.., .., ..3, ..]).iter().all(|&x| x == 0.0),
        "queries 0..3 read no key: their output is 0 whatever q is, so dq is 0 there, got {}",
        g.dq
    );
}

#[test]
fn tiled_attention_backward_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let q = Array4::<f64>::zeros((1, 2, 3, 4));
    let kv = Array4::<f64>::zeros((1, 2, 5, 4));
    let rows = Array4::<f64>::zeros((1, 2, 3, 4));
    let lse = Array3::<f64>::zeros((1, 2, 3));
    let fine = Tiling::new(2, 2, true);
    for (out, lse, tiling, what) in [
        (
            rows.clone(),
            Array3::zeros((1, 2, 5)),
            fine,
            "an lse of 5 rows for 3 queries",
        ),
        (
            Array4::zeros((1, 2, 3, 2)),
            lse.clone(),
            fine,
            "out of width 2 for values of width 4",
        ),
        (
            rows.clone(),
            lse.clone(),
            Tiling::new(2, 0, true),
            "tiles of 0 keys",
        ),
    ] {
        let result = tiled_attention_backward(
            q.view(),
            kv.view(),
            kv.view(),
            out.view(),
            lse.view(),
            rows.view(),
            tiling,
        );
        assert!(result.is_err(), "{what}");
    }
}

#[test]
fn tiled_attention_backward_property() {
    let _proof = course_check::proof();
    property::check(
        "tiled_attention_backward(q, k, v, out, lse, dO, tiles) == central differences, for every tile size",
        &[
            ("B", 2),
            ("h", 2),
            ("T", 4),
            ("S", 4),
            ("hs", 3),
            ("hv", 2),
            ("q_tile", 3),
            ("k_tile", 3),
            ("causal", 2),
        ],
        |case| {
            let (b, h, t, s_len) = (case["B"], case["h"], case["T"], case["S"]);
            let (hs, hv, causal) = (case["hs"], case["hv"], case["causal"] == 2);
            let inputs = [
                case.array((b, h, t, hs)),
                case.array((b, h, s_len, hs)),
                case.array((b, h, s_len, hv)),
                case.array((b, h, t, hv)),
            ];
            let tiling = Tiling::new(case["q_tile"], case["k_tile"], causal);
            let g = tiled_backward_of(&inputs, tiling).map_err(case.error())?;
            grads_close(&numerical_grads(&plain_out(causal), &inputs), &g, GRAD_TOL)
                .map_err(|why| format!("causal = {causal}: {why}"))
        },
    );
}
