//! A gradebook for Canvas' grade import (`--gradebook-format canvas`), laid out as Canvas' own
//! gradebook export, which its import reads back (Instructure's guide "How do I import grades in
//! the Gradebook?", community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807):
//!
//! - the header `Student,ID,SIS User ID,SIS Login ID,Section`, then one column per lesson, named
//!   by the lesson's id: Canvas matches a column to the assignment of that name (or to the
//!   assignment whose id ends the name in parentheses, `lesson01 (1234)`), and creates an
//!   assignment for a name it does not know;
//! - a second line `Points Possible,,,,,<each lesson's max>`, which gives a new assignment its
//!   points;
//! - one line per student. Canvas finds the student by `ID`, `SIS User ID` or `SIS Login ID`,
//!   else by name (`Student`). They come from the roster's columns `canvas_id`, `sis_user_id`,
//!   `sis_login_id`, `section` and `name` (the roster's id when it has no name; without a
//!   roster, the submission's id).

use super::{enrolled, points, roster_cell, text, to_csv};
use crate::batch::Batch;
use anyhow::Result;

/// The columns before the lessons, and the roster's columns that fill them (beyond `Student`).
const IDENTITY: [(&str, &str); 4] = [
    ("ID", "canvas_id"),
    ("SIS User ID", "sis_user_id"),
    ("SIS Login ID", "sis_login_id"),
    ("Section", "section"),
];

/// The gradebook of `batch` for Canvas.
pub fn render(batch: &Batch) -> Result<String> {
    let mut header = vec!["Student".to_owned()];
    header.extend(IDENTITY.iter().map(|(h, _)| (*h).to_owned()));
    header.extend(batch.lessons.iter().map(|(id, _)| text(id)));
    let mut possible = vec!["Points Possible".to_owned()];
    possible.extend(IDENTITY.iter().map(|_| String::new()));
    possible.extend(batch.lessons.iter().map(|(_, max)| max.to_string()));
    let mut records = vec![header, possible];
    for r in enrolled(batch) {
        let name = roster_cell(batch, r, &["name", "student"]).unwrap_or(&r.id);
        let mut rec = vec![text(name)];
        for (_, column) in IDENTITY {
            rec.push(text(roster_cell(batch, r, &[column]).unwrap_or_default()));
        }
        rec.extend(batch.lessons.iter().map(|(id, _)| points(r, id)));
        records.push(rec);
    }
    to_csv(records)
}
