//! Lesson 9's checks. `cargo xtask grade lesson09` runs them one by one against your code; the
//! checks themselves are in `checks.rs`, their expected outputs in `snapshots/`.
#[path = "checks.rs"]
mod checks;
