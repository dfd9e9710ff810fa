//! The progress line on stderr while a grade builds and runs its checks (not the student's
//! record of grades, which is [`crate::progress`]).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};
use std::time::Duration;

/// A spinner while `lessons` lesson(s) build, see [`running_checks`] after. Drawn only when
/// `enabled` and stderr is a terminal (indicatif's stderr target hides itself otherwise); cleared
/// when finished or dropped (on an error too).
pub(super) fn building(enabled: bool, lessons: usize) -> ProgressBar {
    let target = if enabled {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(None, target)
        .with_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"))
        .with_message(format!("Building {lessons} lesson(s)…"))
        .with_finish(ProgressFinish::AndClear);
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// Turns the progress line into `Running checks done/total…` with a bar.
pub(super) fn running_checks(bar: &ProgressBar, total: usize) {
    bar.set_style(
        ProgressStyle::with_template("{spinner} Running checks {pos}/{len}… [{bar:30}]")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_length(total as u64);
    bar.set_position(0);
}
