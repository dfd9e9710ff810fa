//! Lesson 7's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson07::setup::GqaLayer;
use lesson07::*;

/// `(B, H_kv, hs, capacity)` of a cache: each small, the capacity 2 to 5. Every variant fills
/// at least 2 positions: with one, appending along the wrong axis or attending to the newest key
/// only is right too (that case is the property checks').
fn draw_cache(v: &mut Variant) -> (usize, usize, usize, usize) {
    (
        v.between(1, 3),
        v.between(1, 3),
        v.between(1, 4),
        v.between(2, 5),
    )
}

/// A cache of the given shape holding `n` random positions.
fn filled(v: &mut Variant, (b, h_kv, hs, cap): (usize, usize, usize, usize), n: usize) -> KvCache {
    let mut cache = KvCache::new(b, h_kv, hs, cap);
    for _ in 0..n {
        let k = v.randn((b, h_kv, hs));
        let values = v.randn((b, h_kv, hs));
        cache.append(k.view(), values.view()).unwrap();
    }
    cache
}

#[test]
fn append_variant() {
    course_check::variant::check("append", append_with);
}

/// Appends random positions up to the capacity, then one more, which must be refused.
pub fn append_with(v: &mut Variant) {
    let shape = draw_cache(v);
    let n = v.between(2, shape.3);
    v.shapes(&format!(
        "B={}, H_kv={}, hs={}, capacity={}, appended={n}",
        shape.0, shape.1, shape.2, shape.3
    ));
    let mut cache = filled(v, shape, n);
    variant_exact_snapshot!("append_keys", cache.keys());
    variant_exact_snapshot!("append_values", cache.values());
    let (b, h_kv, hs, cap) = shape;
    let mut outcomes = Vec::new();
    for _ in n..=cap {
        let k = v.randn((b, h_kv, hs));
        outcomes.push(cache.append(k.view(), k.view()).is_ok());
    }
    variant_text_snapshot!(
        "append_len",
        format!("len {} after {outcomes:?}", cache.len())
    );
}

#[test]
fn memory_bytes_variant() {
    course_check::variant::check("memory_bytes", memory_bytes_with);
}

/// `memory_bytes` of a partly filled cache.
pub fn memory_bytes_with(v: &mut Variant) {
    // More positions than key/value heads, so appending along the head axis fails for everyone.
    let (b, h_kv, hs, _) = draw_cache(v);
    let n = h_kv + v.between(1, 2);
    let shape = (b, h_kv, hs, n);
    let bytes = v.pick(&[1, 2, 4, 8]);
    v.shapes(&format!(
        "B={}, H_kv={}, hs={}, len={n}, bytes={bytes}",
        shape.0, shape.1, shape.2
    ));
    let cache = filled(v, shape, n);
    variant_text_snapshot!("memory_bytes", cache.memory_bytes(bytes));
}

#[test]
fn decode_step_variant() {
    course_check::variant::check("decode_step", decode_step_with);
}

/// `decode_step` of a random query over a random cache, `H = H_kv · n_rep`.
pub fn decode_step_with(v: &mut Variant) {
    let shape = draw_cache(v);
    let n = v.between(2, shape.3);
    let h = shape.1 * v.between(1, 3);
    let (b, h_kv, hs, _) = shape;
    v.shapes(&format!("B={b}, H={h}, H_kv={h_kv}, hs={hs}, len={n}"));
    let cache = filled(v, shape, n);
    let q = v.randn((b, h, hs));
    let (out, weights) = decode_step(q.view(), &cache).unwrap();
    variant_close_snapshot!("decode_step_output", out);
    variant_close_snapshot!("decode_step_weights", weights);
}

#[test]
fn generate_variant() {
    course_check::variant::check("generate", generate_with);
}

/// `generate` of a prompt then a continuation through one random layer and cache.
pub fn generate_with(v: &mut Variant) {
    let (b, h_kv, hs) = (v.between(1, 2), v.between(1, 2), v.between(1, 3));
    let h = h_kv * v.between(1, 3);
    let (prompt, more) = (v.between(1, 4), v.between(1, 3));
    let d = h * hs;
    v.shapes(&format!(
        "B={b}, D={d}, H={h}, H_kv={h_kv}, prompt={prompt}, then={more}"
    ));
    let layer = GqaLayer::draw(v.rng(), d, h, h_kv, 0.5);
    let mut cache = KvCache::new(b, h_kv, hs, prompt + more);
    let first = v.randn((b, prompt, d));
    let second = v.randn((b, more, d));
    let out = generate(first.view(), &layer, &mut cache).unwrap();
    variant_close_snapshot!("generate_prompt", out);
    let out = generate(second.view(), &layer, &mut cache).unwrap();
    variant_close_snapshot!("generate_continuation", out);
}
