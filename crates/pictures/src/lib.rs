//! Pictures of attention for the lessons' demos (`cargo xtask demo LESSON`).
//!
//! * [`Figure`]: one or more heatmaps (one per head) over the same labelled rows and columns;
//! * [`term`]: draws a figure in the terminal, shaded in colour or with the ramp ` .:-=+*#%@`;
//! * [`svg`]: writes a figure as an SVG file (plotters' SVG backend, no system fonts);
//! * [`steps`] and [`Demo`]: every line a demo prints is computed by the lesson's code, and a
//!   function still at `todo!()` is named on the line instead of ending the demo;
//! * [`py`]: Python's spelling of booleans and lists of strings, so a demo prints what the NumPy
//!   lesson prints.

pub mod demo;
pub mod figure;
pub mod py;
pub mod steps;
pub mod svg;
pub mod term;

pub use demo::{Demo, Options};
pub use figure::{Figure, Panel, positions};
pub use steps::{Got, Skip, Val, attempt};
