//! Lesson 8's classic wrong answers, one module each, planted in place of the reference exercise
//! by its id (`grade --solutions --plant <id>`, see the crate docs). Each is a real implementation a
//! student could write; `course.toml` names the checks that catch it and explains it.

use crate::reference::{attend_step, expect_free_step};
use crate::setup::{KvCache, RingCache};
use attention::Result;
use attention::error::ShapeError;
use ndarray::{Array1, Array3, Array4, ArrayView3, ArrayView4, Axis, s};

/// Rotates one token's `(B, n, hs)` at `p` with the (planted) rotate-half RoPE.
fn rotate_step(x: ArrayView3<f64>, p: usize, base: f64) -> Result<Array3<f64>> {
    let rotated = crate::exercises::apply_rope(x.insert_axis(Axis(2)), p, base)?;
    Ok(rotated.index_axis_move(Axis(2), 0))
}

/// `rope-frequencies-i-over-d`: `θ_i = base^(-i/hs)`, half the right slope.
pub mod rope_frequencies_i_over_d {
    use super::*;

    /// `(hs/2,)` frequencies `base^(-i/hs)`.
    pub fn rope_frequencies(head_size: usize, base: f64) -> Result<Array1<f64>> {
        if head_size == 0 || !head_size.is_multiple_of(2) {
            return Err(ShapeError::with_got(
                "rope_frequencies",
                "an even head size",
                format!("hs = {head_size}"),
            ));
        }
        Ok(Array1::from_shape_fn(head_size / 2, |i| {
            base.powf(-(i as f64) / head_size as f64)
        }))
    }
}

/// `rope-positions-from-1`: row `t` rotated at `start + t + 1`.
pub mod rope_positions_from_1 {
    use super::*;

    /// Rotate-half RoPE with every position one too far.
    pub fn apply_rope(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
        // "the first token is token 1": the reference counts from `start + 1`.
        crate::reference::apply_rope(x, start + 1, base)
    }
}

/// `rope-pairings-mixed`: rotate-half code run on an interleaved layout.
pub mod rope_pairings_mixed {
    use super::*;

    /// Pairs `(j, j + hs/2)` where the layout pairs `(2j, 2j + 1)`.
    pub fn apply_rope_interleaved(
        x: ArrayView4<f64>,
        start: usize,
        base: f64,
    ) -> Result<Array4<f64>> {
        crate::exercises::apply_rope(x, start, base)
    }
}

/// `rope-rotation-after-scale`: the scaled scores rotated instead of q and k.
pub mod rope_rotation_after_scale {
    use super::*;

    /// `q kᵀ / √hs` first, then each row of scores rotated at its query's position.
    pub fn rope_scores(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        q_start: usize,
        _k_start: usize,
        base: f64,
    ) -> Result<Array4<f64>> {
        let (b, h, t, hs) = q.dim();
        let s_len = k.dim().2;
        if k.dim() != (b, h, s_len, hs) {
            return Err(ShapeError::new(
                "rope_scores",
                "keys (B, h, S, hs)",
                k.shape(),
            ));
        }
        let scale = 1.0 / (hs as f64).sqrt();
        let mut scores = Array4::zeros((b, h, t, s_len));
        for bi in 0..b {
            for hi in 0..h {
                let qs = q.slice(s![bi, hi, .., ..]);
                let ks = k.slice(s![bi, hi, .., ..]);
                scores
                    .slice_mut(s![bi, hi, .., ..])
                    .assign(&(qs.dot(&ks.t()) * scale));
            }
        }
        crate::exercises::apply_rope(scores.view(), q_start, base)
    }
}

/// `rope-decode-at-position-0`: every step rotated as if it were the first token.
pub mod rope_decode_at_position_0 {
    use super::*;

    /// Rotates `q` and `k` at 0 whatever the cache holds.
    pub fn rope_decode_step(
        q: ArrayView3<f64>,
        k: ArrayView3<f64>,
        v: ArrayView3<f64>,
        cache: &mut KvCache,
        base: f64,
    ) -> Result<(Array3<f64>, Array3<f64>)> {
        expect_free_step(&q, &k, &v, cache)?;
        let rq = rotate_step(q, 0, base)?;
        let rk = rotate_step(k, 0, base)?;
        cache.append(rk.view(), v)?;
        Ok(attend_step(rq.view(), cache.keys(), cache.values()))
    }
}

/// `rope-decode-query-after-append`: the key at `len`, the query at the length after the append.
pub mod rope_decode_query_after_append {
    use super::*;

    /// Rotates the key at `cache.len()`, appends it, then rotates the query at the new length.
    pub fn rope_decode_step(
        q: ArrayView3<f64>,
        k: ArrayView3<f64>,
        v: ArrayView3<f64>,
        cache: &mut KvCache,
        base: f64,
    ) -> Result<(Array3<f64>, Array3<f64>)> {
        expect_free_step(&q, &k, &v, cache)?;
        let rk = rotate_step(k, cache.len(), base)?;
        cache.append(rk.view(), v)?;
        let rq = rotate_step(q, cache.len(), base)?;
        Ok(attend_step(rq.view(), cache.keys(), cache.values()))
    }
}

/// `rope-on-values`: the values rotated too before they are cached.
pub mod rope_on_values {
    use super::*;

    /// Rotates `q`, `k` and `v` at `cache.len()`.
    pub fn rope_decode_step(
        q: ArrayView3<f64>,
        k: ArrayView3<f64>,
        v: ArrayView3<f64>,
        cache: &mut KvCache,
        base: f64,
    ) -> Result<(Array3<f64>, Array3<f64>)> {
        expect_free_step(&q, &k, &v, cache)?;
        let p = cache.len();
        let (rq, rk, rv) = (
            rotate_step(q, p, base)?,
            rotate_step(k, p, base)?,
            rotate_step(v, p, base)?,
        );
        cache.append(rk.view(), rv.view())?;
        Ok(attend_step(rq.view(), cache.keys(), cache.values()))
    }
}

/// `ring-read-in-slot-order`: the buffer's slots read from slot 0, whatever was written last.
pub mod ring_read_in_slot_order {
    use super::*;

    /// The first `len` slots as they lie in the buffer.
    pub fn ring_in_time_order(ring: &RingCache) -> (Array4<f64>, Array4<f64>) {
        let len = ring.len();
        (
            ring.key_slots().slice(s![.., .., ..len, ..]).to_owned(),
            ring.value_slots().slice(s![.., .., ..len, ..]).to_owned(),
        )
    }
}
