//! The gradebook of a class run (`grade --submissions --gradebook FILE`): the course's own CSV
//! ([`plain`]), or a file for a platform's grade import ([`canvas`], [`moodle`]). A text cell may
//! quote a student, so it is escaped and cut ([`student_text::message`]), and one that starts like
//! a spreadsheet formula is made text ([`inert_cell`]).

pub mod canvas;
pub mod moodle;
pub mod plain;

use crate::official::class_run::{Batch, Row};
use crate::official::roster::{Enrolment, Roster};
use crate::report::student_text;
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

/// The rows a learning platform gets: every row but a submission the roster does not list (the
/// platform would not know the student; the `csv` gradebook and the run's messages name it).
pub fn enrolled(batch: &Batch) -> impl Iterator<Item = &Row> {
    batch
        .rows
        .iter()
        .filter(|r| r.enrolment != Enrolment::NotListed)
}

/// The roster's cell of `row` in the first of the columns `keys` it fills, if any.
pub fn roster_cell<'a>(batch: &'a Batch, row: &Row, keys: &[&str]) -> Option<&'a str> {
    match (&batch.roster, row.enrolment) {
        (Some(roster), Enrolment::Listed(s)) => roster.cell(s, keys),
        _ => None,
    }
}

/// Points of `row` in the lesson `id` (0 when not graded).
pub fn points(row: &Row, id: &str) -> String {
    row.lessons.get(id).copied().unwrap_or(0).to_string()
}

/// A text cell: escaped and cut ([`student_text::message`]), then made [`inert_cell`].
pub fn text(cell: &str) -> String {
    inert_cell(&student_text::message(cell))
}

/// The CSV text of `records`.
pub fn to_csv(records: impl IntoIterator<Item = Vec<String>>) -> Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    for record in records {
        w.write_record(&record)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// A text cell that a spreadsheet shows as text: one that starts like a formula (`=`, `+`, `-`,
/// `@`, a tab or a carriage return; a submission's file name is the student's choice) gets a
/// leading `'`, which spreadsheets hide and read as "this is text" (OWASP's advice against CSV
/// injection). Other text is kept as it is.
pub fn inert_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}
