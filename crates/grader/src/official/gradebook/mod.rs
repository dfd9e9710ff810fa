//! The gradebook of a class run (`grade --submissions --gradebook FILE`): the course's own CSV
//! ([`plain`]), or a file for a platform's grade import ([`canvas`], [`moodle`]). A text cell may
//! quote a student, so it is escaped and cut ([`crate::report::student_text::message`]), and one that starts like
//! a spreadsheet formula is made text ([`inert_cell`]).

pub mod canvas;
mod cells;
pub mod moodle;
pub mod plain;

pub use cells::{Missing, inert_cell};

use crate::official::class_run::Batch;
use crate::official::roster::Roster;
use anyhow::Result;
use std::path::Path;

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

/// How a gradebook is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Its layout.
    pub format: Format,
    /// The points cells of missing students.
    pub missing: Missing,
}

/// The gradebook of `batch` as `opts` say.
pub fn render(batch: &Batch, opts: Options) -> Result<String> {
    match opts.format {
        Format::Csv => plain::render(batch, opts.missing),
        Format::Canvas => canvas::render(batch, opts.missing),
        Format::Moodle => moodle::render(batch, opts.missing),
    }
}

/// Writes the gradebook of `batch` to `path` (else the standard output) and says where; for
/// Moodle, also which grade items to make first.
pub fn write(batch: &Batch, opts: Options, path: Option<&Path>) -> Result<()> {
    let csv = render(batch, opts)?;
    let note = (opts.format == Format::Moodle).then(|| moodle::note(batch));
    match path {
        Some(path) => {
            crate::fsutil::write(path, &csv)?;
            println!("gradebook written to {}", path.display());
            if let Some(note) = note {
                println!("{note}");
            }
        }
        None => {
            print!("{csv}");
            if let Some(note) = note {
                eprintln!("{note}");
            }
        }
    }
    Ok(())
}

/// What `format` needs of the roster, checked before anything is graded: Moodle's identifier
/// column filled in for every student.
pub fn check(format: Format, roster: Option<&Roster>) -> Result<()> {
    match (format, roster) {
        (Format::Moodle, Some(roster)) => moodle::check(roster),
        _ => Ok(()),
    }
}
