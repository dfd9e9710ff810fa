//! A gradebook for Moodle's CSV grade import (`--gradebook-format moodle`; Moodle's
//! documentation, "Grade import", docs.moodle.org/en/Grade_import): one column that identifies
//! the student, then one column of points per lesson, named by the lesson's id. On import the
//! teacher maps the identifier column to the matching user field ("Map from" the column, "Map
//! to" `useremail`, `username` or `useridnumber`) and each lesson column to its grade item.
//!
//! The identifier is the roster's `email` (Moodle compares email addresses case-sensitively), else
//! its `username`, else its `idnumber`; a roster with such a column must fill it for every student.
//! Without one of them (or without a roster) it is the row's id, as `Username`.

use super::{enrolled, points, roster_cell, text, to_csv};
use crate::batch::Batch;
use crate::roster::Roster;
use anyhow::{Result, bail};

/// The roster's identifier columns Moodle can match on, by preference, and their header.
const IDENTIFIERS: [(&str, &str); 4] = [
    ("email", "Email address"),
    ("username", "Username"),
    ("idnumber", "ID number"),
    ("id_number", "ID number"),
];

/// The roster's identifier column and its header, if it has one.
fn identifier(roster: Option<&Roster>) -> Option<(&'static str, &'static str)> {
    let roster = roster?;
    IDENTIFIERS.into_iter().find(|(k, _)| roster.has_column(k))
}

/// Refuses a roster whose identifier column is empty for a student (Moodle could not match the
/// row, and stops the import).
pub fn check(roster: &Roster) -> Result<()> {
    let Some((column, _)) = identifier(Some(roster)) else {
        return Ok(());
    };
    if let Some(s) = (0..roster.students.len()).find(|&s| roster.cell(s, &[column]).is_none()) {
        bail!(
            "{}: the student `{}` has no `{column}`, which Moodle's import matches students on: \
             nothing was graded\n  help: fill it in, or use --gradebook-format csv",
            roster.line_of(s),
            crate::student_text::name(&roster.students[s].id)
        );
    }
    Ok(())
}

/// The gradebook of `batch` for Moodle.
pub fn render(batch: &Batch) -> Result<String> {
    let ident = identifier(batch.roster.as_ref());
    let mut header = vec![ident.map_or("Username", |(_, h)| h).to_owned()];
    header.extend(batch.lessons.iter().map(|(id, _)| text(id)));
    let mut records = vec![header];
    for r in enrolled(batch) {
        let who = match ident {
            Some((column, _)) => roster_cell(batch, r, &[column]).unwrap_or(&r.id),
            None => &r.id,
        };
        let mut rec = vec![text(who)];
        rec.extend(batch.lessons.iter().map(|(id, _)| points(r, id)));
        records.push(rec);
    }
    to_csv(records)
}
