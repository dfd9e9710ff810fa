//! The progress a grade shows on stderr while it builds and runs its checks (not the student's
//! record of grades, which is [`crate::progress`]): a line redrawn in place on a terminal, lines
//! of their own now and then otherwise.

use crate::build::units::{Observer, Units};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};
use std::io::{IsTerminal as _, Write as _};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often plain output says how far the build is.
const PLAIN_EVERY: Duration = Duration::from_secs(2);

/// A grade's progress: indicatif's line on a terminal (hidden when not `enabled` or not on a
/// terminal), and the plain lines' clock when stderr is no terminal.
pub(super) struct Display {
    bar: ProgressBar,
    /// What is built, for the messages (`1 lesson(s)`).
    what: String,
    /// Plain output only: when a line was last written.
    plain: Option<Mutex<Option<Instant>>>,
}

/// The progress of a grade of `lessons` lesson(s), building first. Cleared when finished or
/// dropped (on an error too).
pub(super) fn building(enabled: bool, lessons: usize) -> Display {
    let terminal = std::io::stderr().is_terminal();
    let target = if enabled && terminal {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let what = format!("{lessons} lesson(s)");
    let bar = ProgressBar::with_draw_target(None, target)
        .with_style(ProgressStyle::with_template("{spinner} {wide_msg}").expect("a valid template"))
        .with_message(format!("Building {what}…"))
        .with_finish(ProgressFinish::AndClear);
    bar.enable_steady_tick(Duration::from_millis(100));
    Display {
        bar,
        what,
        plain: (enabled && !terminal).then(|| Mutex::new(None)),
    }
}

/// The words for a build at `units`: `Building 1 lesson(s): 23/61 crates compiled · a, b`.
fn building_text(what: &str, units: &Units) -> String {
    let mut text = format!(
        "Building {what}: {}/{} crates compiled",
        units.done, units.total
    );
    if !units.now.is_empty() {
        text.push_str(" · ");
        text.push_str(&units.now);
    }
    text
}

/// What a grade says while another build of the same course holds the build lock.
const WAITING: &str = "Waiting for another build of this course to finish (a `cargo xtask watch` \
                       in another terminal?)…";

impl Observer for Display {
    /// The line says so; plain output writes it at once.
    fn waiting(&self) {
        if self.plain.is_some() {
            let _ = writeln!(std::io::stderr().lock(), "{WAITING}");
        }
        self.bar.set_message(WAITING);
    }

    /// Cargo says how far the build is: the line shows it; plain output writes it every
    /// [`PLAIN_EVERY`] (its first report at once).
    fn units(&self, units: &Units) {
        let text = building_text(&self.what, units);
        if let Some(last) = &self.plain {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_none_or(|t| t.elapsed() >= PLAIN_EVERY) {
                let _ = writeln!(std::io::stderr().lock(), "{text}");
                *last = Some(Instant::now());
            }
        }
        self.bar.set_message(text);
    }
}

impl Display {
    /// Turns the progress line into `Running checks done/total…` with a bar.
    pub(super) fn running_checks(&self, total: usize) {
        self.bar.set_style(
            ProgressStyle::with_template("{spinner} Running checks {pos}/{len}… [{bar:30}]")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
    }

    /// `done` checks have finished.
    pub(super) fn checks_done(&self, done: usize) {
        self.bar.set_position(done as u64);
    }

    /// Clears the progress line.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_line_says_how_far_and_what_compiles() {
        let units = |now: &str| Units {
            done: 23,
            total: 61,
            now: now.into(),
        };
        assert_eq!(
            building_text("1 lesson(s)", &units("ndarray, pulp")),
            "Building 1 lesson(s): 23/61 crates compiled · ndarray, pulp"
        );
        assert_eq!(
            building_text("2 lesson(s)", &units("")),
            "Building 2 lesson(s): 23/61 crates compiled"
        );
    }
}
