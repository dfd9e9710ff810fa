//! The worked example, assembled from your exercises: given code (nothing to implement here)
//! that calls your [`crate::exercises::draw_head`]. It is kept apart from [`crate::setup`], which
//! never calls your code.

use crate::setup::{C, HS, SEED, SENTENCE, Sentence, WorkedExample};
use attention::rng::RandomState;
use ndarray::Array2;

/// Builds the lesson's example with projections scaled by `scale` (0.3 in the lesson text):
/// seed 42, a `(V, C)` unit-scale embedding table, then head A and head B via
/// [`crate::exercises::draw_head`].
pub fn worked_example(scale: f64) -> WorkedExample {
    let sentence = Sentence::tokenize(SENTENCE);
    let mut rng = RandomState::new(SEED);
    let emb: Array2<f64> = rng.randn((sentence.vocab.len(), C));
    let x = sentence.embed(&emb);
    let head_a = crate::exercises::draw_head(&mut rng, C, HS, scale);
    let head_b = crate::exercises::draw_head(&mut rng, C, HS, scale);
    WorkedExample {
        sentence,
        x,
        head_a,
        head_b,
        rng,
    }
}
