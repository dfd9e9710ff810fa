//! The reference solution reproduces what lesson 1's source text prints, character for character:
//! the output and weight shapes, both attention matrices at `precision=2, suppress=True`, the 0.2617 gap, the focus words and
//! the 7-of-8 disagreement count.

use attention::print::{PrintOptions, format_array};
use lesson01_solution::setup::DEMO_SCALE;
use lesson01_solution::*;
use ndarray::Axis;

const HEAD_A: &str = "\
[[0.12 0.07 0.28 0.12 0.1  0.14 0.09 0.09]
 [0.09 0.01 0.19 0.09 0.05 0.04 0.34 0.2 ]
 [0.04 0.18 0.33 0.04 0.09 0.29 0.03 0.02]
 [0.12 0.07 0.28 0.12 0.1  0.14 0.09 0.09]
 [0.13 0.   0.29 0.13 0.22 0.14 0.07 0.01]
 [0.11 0.01 0.1  0.11 0.09 0.07 0.44 0.07]
 [0.1  0.14 0.19 0.1  0.15 0.18 0.04 0.1 ]
 [0.02 0.78 0.04 0.02 0.04 0.06 0.   0.04]]";

const HEAD_B: &str = "\
[[0.07 0.22 0.1  0.07 0.05 0.31 0.1  0.09]
 [0.05 0.13 0.13 0.05 0.03 0.06 0.26 0.29]
 [0.11 0.08 0.1  0.11 0.09 0.17 0.15 0.18]
 [0.07 0.22 0.1  0.07 0.05 0.31 0.1  0.09]
 [0.08 0.01 0.25 0.08 0.04 0.11 0.34 0.09]
 [0.11 0.   0.31 0.11 0.03 0.23 0.18 0.03]
 [0.15 0.28 0.04 0.15 0.17 0.14 0.03 0.03]
 [0.01 0.89 0.   0.01 0.06 0.01 0.   0.01]]";

#[test]
fn worked_example_prints_the_lesson_text() {
    let ex = worked_example(DEMO_SCALE);
    assert_eq!(ex.sentence.words.len(), 8);
    assert_eq!(ex.sentence.vocab.len(), 7);
    assert_eq!(ex.x.shape(), &[1, 8, 16]);
    let w =
        |h: &Head| attention_weights(ex.x.view(), h.wq.view(), h.wk.view(), h.wv.view()).unwrap();
    let (wa, wb) = (w(&ex.head_a), w(&ex.head_b));
    let out_a = head_output(wa.view(), ex.x.view(), ex.head_a.wv.view()).unwrap();
    assert_eq!(
        format!(
            "outA shape: {} | wA shape: {}",
            attention::error::shape_string(out_a.shape()),
            attention::error::shape_string(wa.shape())
        ),
        "outA shape: (1, 8, 8) | wA shape: (1, 8, 8)"
    );
    let (a0, b0) = (wa.index_axis(Axis(0), 0), wb.index_axis(Axis(0), 0));
    assert_eq!(format_array(&a0, PrintOptions::LESSON), HEAD_A);
    assert_eq!(format_array(&b0, PrintOptions::LESSON), HEAD_B);
    assert_eq!(format!("{:.4}", max_abs_diff(a0, b0).unwrap()), "0.2617");
    let words = ex.sentence.word_refs();
    assert_eq!(
        top_focus(a0, &words).unwrap(),
        [
            "lights", "fog", "lights", "lights", "lights", "fog", "lights", "keeper"
        ]
    );
    assert_eq!(
        top_focus(b0, &words).unwrap(),
        [
            "when", "rolls", "rolls", "when", "fog", "lights", "keeper", "keeper"
        ]
    );
    assert_eq!(disagreements(a0, b0).unwrap(), 7);
}
