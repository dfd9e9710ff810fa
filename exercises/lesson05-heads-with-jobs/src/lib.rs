//! # Lesson 5: two heads, two jobs
//!
//! Random projections make heads that differ, but not in any way you can name. This lesson
//! sets two heads' projections by hand so that each one has a job you can read off its weights.
//!
//! The sentence is `"the rain jacket is light packable"`, `T = 6`. Every token is described by
//! `F = 9` features: six one-hot **position** slots (a 1 in its own position) and three one-hot
//! **category** slots (0 = product word, 1 = feature word, 2 = filler), so `X` is `(6, 9)`:
//!
//! ```text
//! token     the rain jacket is light packable
//! category   2    0      0   2     1        1
//! ```
//!
//! * **Head 1, previous token.** `Wk` (`(9, 6)`) copies the position slots; `Wq` (`(9, 6)`) copies
//!   them shifted back by one and scaled by 6. The query of position `i` lines up with the key of
//!   position `i - 1` only: that key scores 6, every other key 0.
//! * **Head 2, same category.** `Wq = Wk` (`(9, 3)`) read only the category slots, scaled by 4. Two
//!   tokens of the same category score `4 · 4 = 16`, any other pair 0.
//!
//! Both heads use a causal mask (a token sees itself and earlier tokens only) and plain
//! `softmax(Q Kᵀ)`: no `1/√d` here, the gains set how sharp each head is. Each head's weights are
//! a `(T, T) = (6, 6)` matrix, one row per token.
//!
//! What comes out for the last token, "packable":
//!
//! * head 1 puts `e⁶ / (e⁶ + 5) = 0.9878` of its weight on "light", the token before it, and
//!   about 0.0024 on each of the other five it may see;
//! * head 2 splits its weight evenly between the two feature words, "light" and "packable"
//!   itself: 0.5 and 0.5 (exactly equal; `e¹⁶ / (2e¹⁶ + 4)` is `0.49999989`). With a tie, an
//!   argmax that keeps the first maximum names "light".
//!
//! So both heads answer "light", for different reasons. And neither head was given a part of the
//! sentence: **heads split features, not the sentence.** Head 1 reads only the position columns of
//! `X`, head 2 only the category columns, but both read every one of the `T` tokens and each
//! builds its own full `(T, T)` matrix (every weight on or below the diagonal is positive).
//! Stacked, the two heads' weights are `(h, T, T) = (2, 6, 6)`.
//!
//! In a trained model nobody writes these matrices: heads find jobs like "previous token" on their
//! own because they help predict the next token, and real heads are usually less tidy.
//!
//! Run `cargo xtask demo lesson05` to print the example with your code, and
//! `cargo xtask grade lesson05` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] and [`worked`] are given ([`worked`] assembles the
//! worked example from your functions; [`setup`] never calls them).

pub mod exercises;
pub mod setup;
pub mod worked;

pub use exercises::{
    causal_weights, previous_token_head, run_heads, same_category, same_category_head,
    token_features,
};
pub use setup::{Head, WorkedExample};
pub use worked::worked_example;
