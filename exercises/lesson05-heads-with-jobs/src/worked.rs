//! The worked example, assembled from your exercises: given code (nothing to implement here)
//! that calls your [`crate::exercises`]. It is kept apart from [`crate::setup`], which never calls
//! your code.

use crate::setup::{
    CATEGORY, N_CATEGORIES, PREVIOUS_TOKEN_GAIN, SAME_CATEGORY_GAIN, T, WorkedExample,
};
use ndarray::Array3;

/// Builds the worked example with your [`crate::exercises::token_features`],
/// [`crate::exercises::previous_token_head`] and [`crate::exercises::same_category_head`].
pub fn worked_example() -> WorkedExample {
    let x = crate::exercises::token_features(&CATEGORY, N_CATEGORIES)
        .expect("every category is below N_CATEGORIES");
    let previous = crate::exercises::previous_token_head(T, N_CATEGORIES, PREVIOUS_TOKEN_GAIN);
    let same = crate::exercises::same_category_head(T, N_CATEGORIES, SAME_CATEGORY_GAIN);
    WorkedExample { x, previous, same }
}

impl WorkedExample {
    /// Both heads' causal weights, `(2, T, T)`, computed by [`crate::exercises::run_heads`].
    pub fn weights(&self) -> Array3<f64> {
        crate::exercises::run_heads(self.x.view(), &self.heads())
            .expect("the worked example's shapes fit")
    }
}
