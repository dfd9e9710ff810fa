//! A dropped `MhaOutput` gives its arrays back to the forward's buffer pool, and the next forward
//! of the same shape writes every entry of them again: the causal mask's zeros included, where a
//! fresh allocation would have been zero already. One test in its own process, so that nothing
//! else takes the buffers from the pool in between.

use attention::fast::{MhaConfig, mha_forward};
use attention::rng::RandomState;
use ndarray::{Array2, Array3};

#[test]
fn a_causal_forward_into_recycled_buffers_equals_one_into_fresh_memory() {
    let (b, t, d, heads) = (2, 130, 24, 3);
    let mut rs = RandomState::new(11);
    let x: Array3<f64> = rs.randn((b, t, d));
    let w_qkv: Array2<f64> = rs.randn((d, 3 * d)) * 0.2;
    let w_o: Array2<f64> = rs.randn((d, d)) * 0.2;
    let forward = |causal| {
        mha_forward(
            x.view(),
            w_qkv.view(),
            w_o.view(),
            MhaConfig::new(heads).with_causal(causal),
        )
        .unwrap()
    };

    // Into fresh memory (the pool has nothing this large yet); kept by the caller.
    let (fresh_out, fresh_weights) = forward(true).into_parts();
    // Unmasked: every weight is positive. Dropping it gives both arrays to the pool.
    let unmasked = forward(false);
    assert!(unmasked.weights.iter().all(|&w| w > 0.0));
    let pointer = unmasked.weights.as_ptr();
    drop(unmasked);

    // The pool hands out the smallest buffer that fits, so the weights (the largest request) get
    // the dropped weights' buffer back; the output gets some recycled buffer (which one depends on
    // the scratch buffers' sizes), equally full of old values.
    let again = forward(true);
    assert_eq!(
        again.weights.as_ptr(),
        pointer,
        "the causal forward did not get the dropped weights' buffer back"
    );
    for ((_, _, i, j), &w) in again.weights.indexed_iter() {
        assert!(
            j <= i || w == 0.0,
            "weight ({i}, {j}) = {w}: the unmasked run's value was left"
        );
    }
    assert_eq!(again.weights, fresh_weights);
    assert_eq!(again.output, fresh_out);
}
