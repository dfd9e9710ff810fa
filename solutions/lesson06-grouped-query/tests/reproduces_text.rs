//! The reference solution reproduces what text 5 ("Heads split features, not the sentence")
//! prints: the worked W_O product, the practice studio's answers and the GQA invariants.

use lesson06_solution::setup::{GqaWeights, split_heads};
use lesson06_solution::*;
use ndarray::{Array2, Array4, array};

fn text_wo() -> Array2<f64> {
    array![
        [1.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0]
    ]
}

/// One token's two heads of size 2 as `(B, H, T, hs) = (1, 2, 1, 2)`.
fn one_token(o1: [f64; 2], o2: [f64; 2]) -> Array4<f64> {
    Array4::from_shape_fn(
        (1, 2, 1, 2),
        |(_, h, _, j)| if h == 0 { o1[j] } else { o2[j] },
    )
}

#[test]
fn concatenate_then_mix() {
    let y = merge_and_project(one_token([1.0, 0.2], [-0.5, 2.0]).view(), text_wo().view()).unwrap();
    assert_eq!(
        y.iter().copied().collect::<Vec<_>>(),
        [1.0, 0.2, 0.5, 2.2],
        "c W_O"
    );
    let y = merge_and_project(one_token([2.0, -1.0], [0.0, 3.0]).view(), text_wo().view()).unwrap();
    assert_eq!(
        y.iter().copied().collect::<Vec<_>>(),
        [2.0, -1.0, 2.0, 2.0],
        "(2, -1, 2, 2)"
    );
}

#[test]
fn practice_studio_answers() {
    let (b, t, d, h) = (2, 7, 24, 6);
    assert_eq!(d / h, 4, "d_h = 4");
    let mut rng = attention::rng::RandomState::new(0);
    let x: ndarray::Array3<f64> = rng.randn((b, t, d));
    let w = GqaWeights::draw(&mut rng, d, h, 2, 0.2);
    let q = split_heads(
        attention::attend::project(x.view(), w.wq.view())
            .unwrap()
            .view(),
        h,
    )
    .unwrap();
    assert_eq!(q.shape(), &[2, 6, 7, 4], "2 × 6 × 7 × 4");
    let (out, weights) = gqa_forward(x.view(), &w, h, 2, true).unwrap();
    assert_eq!(
        &weights.shape()[2..],
        &[7, 7],
        "one head's score matrix: 7 × 7"
    );
    assert_eq!(out.shape(), &[b, t, d], "GQA still returns model width D");
    assert_eq!(n_rep(h, 2).unwrap() * 2, h, "H = H_kv · n_rep");
}
