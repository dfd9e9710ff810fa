//! Lesson 7's classic wrong answers, one module each, planted in place of the reference exercise
//! by its id (`grade --solutions --plant <id>`, see the crate docs). Each is a real implementation a
//! student could write; `course.toml` names the checks that catch it and explains it.

use crate::exercises::KvCache;
use crate::setup::{CacheError, expect_shape};
use attention::Result;
use attention::error::ShapeError;
use ndarray::{Array3, ArrayView3, Axis, s};

/// `decode-attends-only-to-new-key`: each query head reads the newest cached position only.
pub mod decode_attends_only_to_new_key {
    use super::*;

    /// `(B, H, hs)` against the cache -> `((B, H, hs), (B, H, len))`, all weight on the last key.
    pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
        let (b, h, hs) = q.dim();
        let h_kv = cache.kv_heads();
        if b != cache.batch()
            || hs != cache.head_size()
            || h == 0
            || !h.is_multiple_of(h_kv)
            || cache.is_empty()
        {
            return Err(ShapeError::new(
                "decode_step",
                "queries that fit the cache",
                q.shape(),
            ));
        }
        let len = cache.len();
        let mut out = Array3::zeros((b, h, hs));
        let mut weights = Array3::zeros((b, h, len));
        for bi in 0..b {
            for i in 0..h {
                let g = i / (h / h_kv);
                // softmax over the single newest score is 1.0: the output is the newest value
                weights[[bi, i, len - 1]] = 1.0;
                out.slice_mut(s![bi, i, ..])
                    .assign(&cache.values().slice(s![bi, g, len - 1, ..]));
            }
        }
        Ok((out, weights))
    }
}

/// `decode-masks-the-cache-again`: the one-row causal mask `causal(1, len)` keeps key 0 only.
pub mod decode_masks_the_cache_again {
    use super::*;
    use attention::attend::scaled_dot_product;
    use attention::mask::causal;

    /// `(B, H, hs)` against the cache -> `((B, H, hs), (B, H, len))`, all weight on position 0.
    pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
        let (b, h, hs) = q.dim();
        let h_kv = cache.kv_heads();
        if b != cache.batch()
            || hs != cache.head_size()
            || h == 0
            || !h.is_multiple_of(h_kv)
            || cache.is_empty()
        {
            return Err(ShapeError::new(
                "decode_step",
                "queries that fit the cache",
                q.shape(),
            ));
        }
        let len = cache.len();
        let mask = causal(1, len); // top-left aligned: row 0 allows key 0 only
        let mut out = Array3::zeros((b, h, hs));
        let mut weights = Array3::zeros((b, h, len));
        for i in 0..h {
            let g = i / (h / h_kv);
            let (o, w) = scaled_dot_product(
                q.slice(s![.., i..i + 1, ..]),
                cache.keys().index_axis(Axis(1), g),
                cache.values().index_axis(Axis(1), g),
                Some(&mask.view()),
            )?;
            out.slice_mut(s![.., i..i + 1, ..]).assign(&o);
            weights.slice_mut(s![.., i..i + 1, ..]).assign(&w);
        }
        Ok((out, weights))
    }
}

/// `decode-softmax-wrong-axis`: every head's scores gathered into `(B, H, len)` and normalised
/// over the heads (axis 1) instead of over the cached positions.
pub mod decode_softmax_wrong_axis {
    use super::*;
    use attention::softmax::softmax_row;
    use ndarray::ArrayView1;

    /// `(B, H, hs)` against the cache -> `((B, H, hs), (B, H, len))`, each position's weights
    /// summing to 1 across the heads.
    pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
        let (b, h, hs) = q.dim();
        let h_kv = cache.kv_heads();
        if b != cache.batch()
            || hs != cache.head_size()
            || h == 0
            || !h.is_multiple_of(h_kv)
            || cache.is_empty()
        {
            return Err(ShapeError::new(
                "decode_step",
                "queries that fit the cache",
                q.shape(),
            ));
        }
        let len = cache.len();
        let (keys, values) = (cache.keys(), cache.values());
        let mut weights = Array3::zeros((b, h, len));
        for bi in 0..b {
            for i in 0..h {
                let k = keys.slice(s![bi, i / (h / h_kv), .., ..]);
                let scores = k.dot(&q.slice(s![bi, i, ..])) / (hs as f64).sqrt();
                weights.slice_mut(s![bi, i, ..]).assign(&scores);
            }
        }
        for mut across_heads in weights.lanes_mut(Axis(1)) {
            let mut shifted = across_heads.to_vec();
            softmax_row(&mut shifted);
            across_heads.assign(&ArrayView1::from(&shifted));
        }
        let mut out = Array3::zeros((b, h, hs));
        for bi in 0..b {
            for i in 0..h {
                let v = values.slice(s![bi, i / (h / h_kv), .., ..]);
                out.slice_mut(s![bi, i, ..])
                    .assign(&weights.slice(s![bi, i, ..]).dot(&v));
            }
        }
        Ok((out, weights))
    }
}

/// `decode-softmax-without-max-shift`: each head's weights are `exp(score) / Σ exp(score)`
/// without subtracting the row's maximum first, so large scores overflow to NaN.
pub mod decode_softmax_without_max_shift {
    use super::*;

    /// `(B, H, hs)` against the cache -> `((B, H, hs), (B, H, len))`, with a softmax that
    /// overflows for scores past about 709.
    pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
        let (b, h, hs) = q.dim();
        let h_kv = cache.kv_heads();
        if b != cache.batch()
            || hs != cache.head_size()
            || h == 0
            || !h.is_multiple_of(h_kv)
            || cache.is_empty()
        {
            return Err(ShapeError::new(
                "decode_step",
                "queries that fit the cache",
                q.shape(),
            ));
        }
        let len = cache.len();
        let (keys, values) = (cache.keys(), cache.values());
        let mut weights = Array3::zeros((b, h, len));
        let mut out = Array3::zeros((b, h, hs));
        for bi in 0..b {
            for i in 0..h {
                let k = keys.slice(s![bi, i / (h / h_kv), .., ..]);
                let exps = (k.dot(&q.slice(s![bi, i, ..])) / (hs as f64).sqrt()).mapv(f64::exp);
                let row = &exps / exps.sum();
                let v = values.slice(s![bi, i / (h / h_kv), .., ..]);
                out.slice_mut(s![bi, i, ..]).assign(&row.dot(&v));
                weights.slice_mut(s![bi, i, ..]).assign(&row);
            }
        }
        Ok((out, weights))
    }
}

/// `append-wrong-axis`: the new position written along the heads axis (1) of the
/// `(B, H_kv, capacity, hs)` buffers instead of the positions axis (2).
pub mod append_wrong_axis {
    use super::*;

    /// [`KvCache::append`] writing key and value `p` at head `p`.
    pub fn append(
        cache: &mut KvCache,
        k: ArrayView3<f64>,
        v: ArrayView3<f64>,
    ) -> std::result::Result<usize, CacheError> {
        let expected = [cache.batch(), cache.kv_heads(), cache.head_size()];
        expect_shape(
            "KvCache::append",
            "keys (B, H_kv, hs)",
            k.shape(),
            &expected,
        )?;
        expect_shape(
            "KvCache::append",
            "values (B, H_kv, hs)",
            v.shape(),
            &expected,
        )?;
        if cache.len == cache.capacity() {
            return Err(CacheError::Full {
                capacity: cache.capacity(),
                len: cache.len,
                requested: 1,
            });
        }
        let p = cache.len;
        cache.keys.slice_mut(s![.., p, .., ..]).assign(&k);
        cache.values.slice_mut(s![.., p, .., ..]).assign(&v);
        cache.len += 1;
        Ok(cache.len)
    }
}
