//! The lesson's given code: the worked example's inputs.

/// Size of the worked example's matrix.
pub const N: usize = 3;
