//! Building blocks for the multi-head attention course, in `f64` throughout.
//!
//! Shape names follow the lessons: `B` batch, `T` query length, `S` source length,
//! `C` (or `D`) model width, `h` heads, `hs = C / h` head size.

pub mod error;
pub mod rng;
