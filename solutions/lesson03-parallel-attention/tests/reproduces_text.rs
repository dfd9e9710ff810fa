//! The reference solution reproduces the shapes text 3 ("Several heads, one shared
//! representation") states for attention across heads: B = 2, T = 4, S = 6, D = 8, h = 2, so
//! each head has 4 features, `B × h × T × S` weights, every weight row summing to 1.

use lesson03_solution::*;

#[test]
fn worked_example_has_the_text_shapes() {
    let ex = worked_example();
    assert_eq!(ex.q.shape(), &[2, 2, 4, 4], "(B, h, T, D / h)");
    assert_eq!(ex.k.shape(), &[2, 2, 6, 4], "(B, h, S, D / h)");
    let (out, weights) = parallel_attention(ex.q.view(), ex.k.view(), ex.v.view(), None).unwrap();
    assert_eq!(weights.shape(), &[2, 2, 4, 6], "weights (B, h, T, S)");
    assert_eq!(weights.len(), 2 * 2 * 4 * 6, "B × h × T × S entries");
    assert_eq!(
        out.shape(),
        &[2, 2, 4, 4],
        "each head mixes S values into T outputs"
    );
    for row in weights.rows() {
        assert!((row.sum() - 1.0).abs() < 1e-12, "weights.sum(-1) == 1");
    }
}
