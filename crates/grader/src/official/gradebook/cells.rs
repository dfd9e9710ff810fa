//! The cells every gradebook layout writes: points, text made inert, the roster's columns.

use crate::official::class_run::{Batch, Row};
use crate::official::roster::Enrolment;
use crate::report::student_text;
use anyhow::Result;

/// The points of a roster's student who handed nothing in (`--missing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Missing {
    /// 0 points.
    #[default]
    Zero,
    /// Empty cells: a platform's import then leaves the student's grade as it is (Canvas and
    /// Moodle skip an empty cell).
    Blank,
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

/// Points of `row` in the lesson `id` (0 when not graded), or an empty cell for a student who
/// handed nothing in when `missing` says so.
pub fn points(row: &Row, id: &str, missing: Missing) -> String {
    if blank(row, missing) {
        return String::new();
    }
    after_penalty(row, Some(id))
}

/// The points of `row` after its late penalty, in all and in the lesson `id`.
pub fn after_penalty(row: &Row, id: Option<&str>) -> String {
    let raw = match id {
        Some(id) => row.lessons.get(id).copied().unwrap_or(0),
        None => row.score,
    };
    let deducted = row.late.as_ref().map_or(0.0, |l| match id {
        Some(id) => l.of(id),
        None => l.total(),
    });
    crate::official::late::lateness::points(f64::from(raw) - deducted)
}

/// Whether `row`'s points cells are left empty: nothing handed in, and `missing` is blank.
pub fn blank(row: &Row, missing: Missing) -> bool {
    row.submission.is_none() && missing == Missing::Blank
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
