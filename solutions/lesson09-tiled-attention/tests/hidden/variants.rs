//! Lesson 9's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.
//!
//! Every draw keeps the catalogued mistakes visible for every student: a row's first chunk is
//! always masked and its largest score always comes in a later chunk; the causal forward always
//! has more queries than keys (rows that read nothing) and at least two key tiles, the last key
//! scoring highest for the last query; head sizes of at least 2 (a scale of 1/√1 cannot be
//! forgotten) and at least two keys.

use course_check::{Variant, variant_close_snapshot, variant_text_snapshot};
use lesson09::*;
use ndarray::{Array1, Array3, Array4, ArrayView4, Axis, s};

#[test]
fn online_softmax_update_variant() {
    course_check::variant::check("online_softmax_update", online_softmax_update_with);
}

/// A row of 6 to 16 scores in chunks of 2 or 3: the first chunk masked, the largest score last.
pub fn online_softmax_update_with(v: &mut Variant) {
    let chunk = v.between(2, 3);
    let n = chunk * v.between(3, 5) + v.between(0, chunk - 1);
    v.shapes(&format!("n={n}, chunk={chunk}"));
    let mut row: Array1<f64> = v.randn(n) * 20.0;
    row.slice_mut(s![..chunk]).fill(f64::NEG_INFINITY);
    let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    row[n - 1] = top + 7.0;
    let mut state = RowState::EMPTY;
    let mut states = Vec::new();
    for c in row.axis_chunks_iter(Axis(0), chunk) {
        state = online_softmax_update(state, c);
        states.push(format!(
            "{:.4} {:.4}",
            if state.max == f64::NEG_INFINITY {
                -1.0e6
            } else {
                state.max
            },
            state.sum
        ));
    }
    variant_text_snapshot!("states", states.join("\n"));
}

/// Draws `(B, h, hs, hv)`, batch and heads 1 to 2, widths 2 to 6.
fn draw_heads(v: &mut Variant) -> (usize, usize, usize, usize) {
    (
        v.between(1, 2),
        v.between(1, 2),
        v.between(2, 6),
        v.between(2, 5),
    )
}

#[test]
fn tiled_attention_variant() {
    course_check::variant::check("tiled_attention", tiled_attention_with);
}

/// Causal with more queries than keys and at least two key tiles, then without the mask.
pub fn tiled_attention_with(v: &mut Variant) {
    let (b, h, hs, hv) = draw_heads(v);
    let s_len = v.between(3, 7);
    let t = s_len + v.between(1, 3);
    let (qt, kt) = (v.between(1, 4), v.between(1, s_len - 1));
    v.shapes(&format!(
        "B={b}, h={h}, T={t}, S={s_len}, hs={hs}, hv={hv}, tiles {qt}x{kt}"
    ));
    let q: Array4<f64> = v.randn((b, h, t, hs));
    let mut k: Array4<f64> = v.randn((b, h, s_len, hs));
    let vals: Array4<f64> = v.randn((b, h, s_len, hv));
    // The last key along the last query, long: it tops that row in the last key tile.
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let last_q = q.slice(s![bi, hi, t - 1, ..]);
        let norm = last_q.dot(&last_q).sqrt();
        k.slice_mut(s![bi, hi, s_len - 1, ..])
            .assign(&(&last_q * (12.0 / norm)));
    }
    for causal in [true, false] {
        let (out, lse) =
            tiled_attention(q.view(), k.view(), vals.view(), Tiling::new(qt, kt, causal)).unwrap();
        variant_close_snapshot!(&format!("out_causal_{causal}"), out);
        variant_close_snapshot!(
            &format!("lse_causal_{causal}"),
            lse.mapv(|x| if x == f64::NEG_INFINITY { -1.0e6 } else { x })
        );
    }
}

#[test]
fn attention_backward_variant() {
    course_check::variant::check("attention_backward", attention_backward_with);
}

/// Random inputs `[q, k, v, d_out]` for `(B, h, T, S, hs, hv)`.
fn draw_inputs(
    v: &mut Variant,
    (b, h, t, s_len, hs, hv): (usize, usize, usize, usize, usize, usize),
) -> [Array4<f64>; 4] {
    [
        v.randn((b, h, t, hs)),
        v.randn((b, h, s_len, hs)),
        v.randn((b, h, s_len, hv)),
        v.randn((b, h, t, hv)),
    ]
}

/// The plain backward of random inputs, causal or not.
pub fn attention_backward_with(v: &mut Variant) {
    let (b, h, hs, hv) = draw_heads(v);
    let (t, s_len, causal) = (v.between(2, 7), v.between(2, 7), v.pick(&[true, false]));
    v.shapes(&format!(
        "B={b}, h={h}, T={t}, S={s_len}, hs={hs}, hv={hv}, causal={causal}"
    ));
    let [q, k, vals, d_out] = draw_inputs(v, (b, h, t, s_len, hs, hv));
    let g = attention_backward(q.view(), k.view(), vals.view(), d_out.view(), causal).unwrap();
    variant_close_snapshot!("plain_dq", g.dq);
    variant_close_snapshot!("plain_dk", g.dk);
    variant_close_snapshot!("plain_dv", g.dv);
}

#[test]
fn tiled_attention_backward_variant() {
    course_check::variant::check("tiled_attention_backward", tiled_attention_backward_with);
}

/// Each row's output and logsumexp, written out here (not by the student's forward): `−∞` and
/// 0 for a row that reads no key.
fn saved(q: ArrayView4<f64>, k: ArrayView4<f64>, v: ArrayView4<f64>) -> (Array4<f64>, Array3<f64>) {
    let (b, h, t, hs) = q.dim();
    let (s_len, hv) = (k.dim().2, v.dim().3);
    let mut out = Array4::zeros((b, h, t, hv));
    let mut lse = Array3::from_elem((b, h, t), f64::NEG_INFINITY);
    for (bi, hi, i) in
        (0..b).flat_map(|bi| (0..h).flat_map(move |hi| (0..t).map(move |i| (bi, hi, i))))
    {
        let keys: Vec<usize> = (0..s_len).filter(|&j| j + t <= i + s_len).collect();
        let scores: Vec<f64> = keys
            .iter()
            .map(|&j| {
                q.slice(s![bi, hi, i, ..]).dot(&k.slice(s![bi, hi, j, ..])) / (hs as f64).sqrt()
            })
            .collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if keys.is_empty() {
            continue;
        }
        let total: f64 = scores.iter().map(|x| (x - max).exp()).sum();
        lse[[bi, hi, i]] = max + total.ln();
        for (&j, x) in keys.iter().zip(&scores) {
            let w = (x - max).exp() / total;
            let mut row = out.slice_mut(s![bi, hi, i, ..]);
            row.scaled_add(w, &v.slice(s![bi, hi, j, ..]));
        }
    }
    (out, lse)
}

/// The tiled backward of random inputs under the causal mask, from a forward written here.
pub fn tiled_attention_backward_with(v: &mut Variant) {
    let (b, h, hs, hv) = draw_heads(v);
    let (t, s_len) = (v.between(2, 7), v.between(2, 7));
    let (qt, kt) = (v.between(1, 4), v.between(1, 4));
    v.shapes(&format!(
        "B={b}, h={h}, T={t}, S={s_len}, hs={hs}, hv={hv}, tiles {qt}x{kt}, causal"
    ));
    let [q, k, vals, d_out] = draw_inputs(v, (b, h, t, s_len, hs, hv));
    let (out, lse) = saved(q.view(), k.view(), vals.view());
    let g = tiled_attention_backward(
        q.view(),
        k.view(),
        vals.view(),
        out.view(),
        lse.view(),
        d_out.view(),
        Tiling::new(qt, kt, true),
    )
    .unwrap();
    variant_close_snapshot!("tiled_dq", g.dq);
    variant_close_snapshot!("tiled_dk", g.dk);
    variant_close_snapshot!("tiled_dv", g.dv);
}
