//! The course's grader as a library: the pipeline of `cargo xtask grade` and what official grading
//! adds to it. `xtask` is its command line. See docs/architecture.md.
//!
//! [`plan`] → [`build`] → [`run`] (listing, then running each check, sandboxed) → [`judge`] →
//! [`report`], driven by [`grade`]; [`official`] grades submissions and classes with it.

// The student build (without the `instructor` feature) leaves out what only the instructor
// commands use; it would be reported as dead there.
#![cfg_attr(not(feature = "instructor"), allow(dead_code))]

pub mod build;
pub mod course;
pub mod fsutil;
pub mod grade;
pub mod judge;
#[cfg(feature = "instructor")]
pub mod official;
pub mod plan;
pub mod progress;
pub mod report;
pub mod request;
pub mod run;
pub mod variants;
