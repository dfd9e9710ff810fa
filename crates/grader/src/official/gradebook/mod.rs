//! The gradebook of a class run (`grade --submissions --gradebook FILE`): the course's own CSV
//! ([`plain`]), or a file for a platform's grade import ([`canvas`], [`moodle`]). A text cell may
//! quote a student, so it is escaped and cut ([`crate::report::student_text::message`]), and one that starts like
//! a spreadsheet formula is made text ([`inert_cell`]).

pub mod canvas;
mod cells;
pub mod moodle;
pub mod plain;

pub use cells::inert_cell;

use crate::official::class_run::Batch;
use crate::official::roster::Roster;
use anyhow::Result;

/// The layout of a class run's gradebook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The course's CSV: every column, with the status and the error of each row.
    #[default]
    Csv,
    /// For Canvas' gradebook import.
    Canvas,
    /// For Moodle's CSV grade import.
    Moodle,
}

/// The gradebook of `batch` in `format`.
pub fn render(batch: &Batch, format: Format) -> Result<String> {
    match format {
        Format::Csv => plain::render(batch),
        Format::Canvas => canvas::render(batch),
        Format::Moodle => moodle::render(batch),
    }
}

/// What `format` needs of the roster, checked before anything is graded: Moodle's identifier
/// column filled in for every student.
pub fn check(format: Format, roster: Option<&Roster>) -> Result<()> {
    match (format, roster) {
        (Format::Moodle, Some(roster)) => moodle::check(roster),
        _ => Ok(()),
    }
}
