//! A gradebook for Moodle's CSV grade import (`--gradebook-format moodle`, docs.moodle.org's
//! "Grade import"): one column that identifies the student (`IDENTIFIERS`), then one column of
//! points per lesson, named by its id and its points possible (`lesson01 (out of 10)`: Moodle's
//! file has no line for them). On import the teacher maps the identifier column to the matching
//! user field and each lesson column to its grade item, made beforehand with that maximum grade
//! (a grade item the import creates is out of 100).

use super::cells::{Missing, enrolled, points, roster_cell, text, to_csv};
use crate::official::class_run::Batch;
use crate::official::roster::Roster;
use anyhow::{Result, bail};

/// The roster's identifier columns Moodle can match on, by preference, and their header.
///
/// The first the roster has is used (Moodle compares email addresses case-sensitively), and must
/// be filled for every student ([`check`]); without one, or without a roster, the row's id, as
/// `Username`.
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
            crate::report::student_text::name(&roster.students[s].id)
        );
    }
    Ok(())
}

/// What to do in Moodle before the import: a grade item per lesson, with its maximum grade.
pub fn note(batch: &Batch) -> String {
    let items: Vec<String> = batch
        .lessons
        .iter()
        .map(|(id, max)| format!("{id} ({max})"))
        .collect();
    format!(
        "Moodle: before importing, make one grade item per lesson with its maximum grade ({}), \
         then map each column to its item (docs/class-grading.md)",
        items.join(", ")
    )
}

/// The gradebook of `batch` for Moodle.
pub fn render(batch: &Batch, missing: Missing) -> Result<String> {
    let ident = identifier(batch.roster.as_ref());
    let mut header = vec![ident.map_or("Username", |(_, h)| h).to_owned()];
    header.extend(
        batch
            .lessons
            .iter()
            .map(|(id, max)| text(&format!("{id} (out of {max})"))),
    );
    let mut records = vec![header];
    for r in enrolled(batch) {
        let who = match ident {
            Some((column, _)) => roster_cell(batch, r, &[column]).unwrap_or(&r.id),
            None => &r.id,
        };
        let mut rec = vec![text(who)];
        rec.extend(batch.lessons.iter().map(|(id, _)| points(r, id, missing)));
        records.push(rec);
    }
    to_csv(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::class::fixture::{batch, failed, graded};
    use crate::official::roster::Enrolment;
    use std::path::Path;

    fn roster(text: &str) -> Roster {
        Roster::parse(Path::new("roster.csv"), text.as_bytes()).unwrap()
    }

    #[test]
    fn moodle_gets_an_identifier_and_a_column_per_lesson() {
        let lessons = [("lesson01", 10), ("lesson02", 5)];
        let mut ann = graded("ann", &[("lesson01", 7), ("lesson02", 5)], 15);
        ann.enrolment = Enrolment::Listed(0);
        let mut bo = failed("bo", "bad", 15);
        bo.enrolment = Enrolment::Listed(1);
        let mut eve = graded("eve", &[("lesson01", 10)], 15);
        eve.enrolment = Enrolment::NotListed;
        let rows = vec![ann, bo, eve];
        let with = |text: &str| {
            let r = roster(text);
            render(&batch(&lessons, rows.clone(), Some(r)), Missing::Zero).unwrap()
        };
        assert_eq!(
            with("id,username,email\nann,a1,ann@x\nbo,b1,=bo@x\n"),
            "Email address,lesson01 (out of 10),lesson02 (out of 5)\nann@x,7,5\n'=bo@x,0,0\n"
        );
        assert_eq!(
            with("id,ID number\nann,7\nbo,8\n"),
            "ID number,lesson01 (out of 10),lesson02 (out of 5)\n7,7,5\n8,0,0\n"
        );
        assert_eq!(
            with("id,name\nann,A\nbo,B\n"),
            "Username,lesson01 (out of 10),lesson02 (out of 5)\nann,7,5\nbo,0,0\n"
        );
        let csv = render(
            &batch(&lessons, vec![failed("-1", "", 15)], None),
            Missing::Zero,
        )
        .unwrap();
        assert_eq!(
            csv,
            "Username,lesson01 (out of 10),lesson02 (out of 5)\n'-1,0,0\n"
        );
    }

    #[test]
    fn a_student_without_the_identifier_is_refused_before_grading() {
        assert!(check(&roster("id,name\nann,A\n")).is_ok());
        assert!(check(&roster("id,email\nann,a@x\nbo,b@x\n")).is_ok());
        let e = check(&roster("id,email\nann,a@x\nbo, \n")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("roster.csv:3: the student `bo` has no `email`"),
            "{e}"
        );
    }
}
