//! The lesson's given code: the six-token sentence, its categories, the two hand-built heads'
//! gains, and the worked example's type.
//!
//! Nothing to implement here, and nothing here calls your code: the worked example is assembled
//! from your [`crate::exercises`] in [`crate::worked`].

use ndarray::{Array2, ArrayView1};

/// The six tokens of the worked example, in order.
pub const TOKENS: [&str; 6] = ["the", "rain", "jacket", "is", "light", "packable"];
/// The category of every token: 0 = product word, 1 = feature word, 2 = filler.
pub const CATEGORY: [usize; 6] = [2, 0, 0, 2, 1, 1];
/// The names of the categories, indexed by category number.
pub const CATEGORY_NAMES: [&str; 3] = ["product", "feature", "filler"];
/// Sequence length `T` of the worked example.
pub const T: usize = 6;
/// Number of categories `K` (the last `K` features of every token).
pub const N_CATEGORIES: usize = 3;
/// Feature width `F = T + K` of the worked example: 6 position slots and 3 category slots.
pub const F: usize = T + N_CATEGORIES;
/// The previous-token head's query gain: a matching key scores 6, every other key 0.
pub const PREVIOUS_TOKEN_GAIN: f64 = 6.0;
/// The same-category head's gain on queries and keys: a matching key scores `4 · 4 = 16`.
pub const SAME_CATEGORY_GAIN: f64 = 4.0;

/// A hand-built head: only its query and key projections matter for the weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// Query projection `(F, d)`.
    pub wq: Array2<f64>,
    /// Key projection `(F, d)`, same shape as `wq`.
    pub wk: Array2<f64>,
}

/// The worked example: the input and the two heads.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// `X`, `(T, F) = (6, 9)`: one-hot position, then one-hot category.
    pub x: Array2<f64>,
    /// Head 1, the previous-token head: `Wq`, `Wk` both `(9, 6)`.
    pub previous: Head,
    /// Head 2, the same-category head: `Wq`, `Wk` both `(9, 3)`.
    pub same: Head,
}

impl WorkedExample {
    /// Both heads, head 1 first.
    pub fn heads(&self) -> [Head; 2] {
        [self.previous.clone(), self.same.clone()]
    }
}

/// The column of the largest value in `row`; a tie goes to the first such column (NumPy's
/// `argmax`). An empty row gives 0.
pub fn argmax_first(row: ArrayView1<f64>) -> usize {
    let mut best = 0;
    for (j, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = j;
        }
    }
    best
}
