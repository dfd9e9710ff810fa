//! Lesson 9's hidden checks: graded officially (in the instructors' workspace and by
//! `cargo xtask grade --submission`), never shipped to students. Shared, like the visible checks,
//! by the solution crate (`solution.rs`) and the exercise crate (`exercise.rs`), under the same
//! test target name `lesson09_hidden`, so both read the snapshots in `snapshots/` next to this file.

use course_check::assert_close_snapshot;
use lesson09::*;
use ndarray::Array4;

#[test]
fn tiled_attention_scores_past_exp_overflow() {
    let _proof = course_check::proof();
    // Scores near ±1000, where exp overflows unless every rescaling is done against the
    // running maximum; tiles that cut neither axis evenly, T > S with the causal mask.
    let q = Array4::from_shape_fn((1, 2, 7, 4), |(_, i, t, j)| {
        (((i * 5 + t * 3 + j * 7) % 11) as f64 - 5.0) * 90.0
    });
    let k = Array4::from_shape_fn((1, 2, 5, 4), |(_, i, t, j)| {
        (((i * 3 + t * 7 + j * 5) % 9) as f64 - 4.0) / 2.0
    });
    let v = Array4::from_shape_fn((1, 2, 5, 3), |(_, i, t, j)| {
        ((i + 2 * t + 3 * j) % 5) as f64
    });
    let (out, lse) =
        tiled_attention(q.view(), k.view(), v.view(), Tiling::new(3, 2, true)).unwrap();
    assert_close_snapshot!("overflow_out", out);
    // Rows that read no key have lse −∞; the snapshot holds the finite rows.
    assert_close_snapshot!(
        "overflow_lse",
        lse.mapv(|x| if x == f64::NEG_INFINITY { -1.0e6 } else { x })
    );
}
