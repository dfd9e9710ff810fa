//! Building blocks for the multi-head attention course, in `f64` throughout.
//!
//! Shape names follow the lessons: `B` batch, `T` query length, `S` source length,
//! `C` (or `D`) model width, `h` heads, `hs = C / h` head size.
//!
//! * [`rng`]: NumPy's legacy seeded generator, bit-exact, so lessons print NumPy's numbers.
//! * [`softmax`], [`mask`], [`attend`]: stable softmax, boolean masks, scaled dot-product attention.
//! * [`error`]: shape errors that say what was expected and what arrived.
//! * [`tiled`]: the same attention in tiles with an online softmax, never holding the `(T, S)`
//!   weights (lesson 9).

pub mod attend;
pub mod error;
pub mod fast;
pub mod mask;
pub mod print;
pub mod rng;
pub mod softmax;
pub mod tiled;

pub use error::{Result, ShapeError};
