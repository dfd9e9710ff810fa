//! A gradebook for Canvas' grade import (`--gradebook-format canvas`), laid out as Canvas' own
//! gradebook export, which its import reads back (Instructure's guide "How do I import grades in
//! the Gradebook?"): identity columns (`IDENTITY`), one column per lesson named by its id, a
//! `Points Possible` line, then one line per student.

use super::cells::{Missing, enrolled, points, roster_cell, text, to_csv};
use crate::official::class_run::Batch;
use anyhow::Result;

/// The columns before the lessons, and the roster's columns that fill them (beyond `Student`).
const IDENTITY: [(&str, &str); 4] = [
    ("ID", "canvas_id"),
    ("SIS User ID", "sis_user_id"),
    ("SIS Login ID", "sis_login_id"),
    ("Section", "section"),
];

/// The gradebook of `batch` for Canvas.
///
/// Canvas matches a lesson column to the assignment of that name (or whose id ends the name in
/// parentheses, `lesson01 (1234)`) and creates one for a name it does not know, with the points of
/// the `Points Possible,,,,,<max>…` line. It finds a student by `ID`, `SIS User ID` or
/// `SIS Login ID`, else by name (`Student`): the roster's `canvas_id`, `sis_user_id`,
/// `sis_login_id`, `section` and `name` (its id when it has no name; without a roster, the
/// submission's id).
pub fn render(batch: &Batch, missing: Missing) -> Result<String> {
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
        rec.extend(batch.lessons.iter().map(|(id, _)| points(r, id, missing)));
        records.push(rec);
    }
    to_csv(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::class::fixture::{batch, failed, graded};
    use crate::official::roster::{Enrolment, Roster};

    #[test]
    fn canvas_gets_its_columns_points_possible_and_the_rosters_ids() {
        let roster = Roster::parse(
            std::path::Path::new("roster.csv"),
            b"id,Name,canvas_id,SIS User ID,sis_login_id,section,email\n\
              ann,\"Lee, Ann\",101,S1,ann@x,A,ann@x\n\
              bo,@Bo,102,S2,bo@x,-B,bo@x\n",
        )
        .unwrap();
        let mut ann = graded("ann", &[("lesson01", 7), ("lesson02", 5)], 15);
        ann.enrolment = Enrolment::Listed(0);
        let mut bo = failed("bo", "bad", 15);
        bo.enrolment = Enrolment::Listed(1);
        let mut eve = graded("eve", &[("lesson01", 10)], 15);
        eve.enrolment = Enrolment::NotListed;
        let lessons = [("lesson01", 10), ("lesson02", 5)];
        let csv = render(
            &batch(&lessons, vec![ann, bo, eve], Some(roster)),
            Missing::Zero,
        )
        .unwrap();
        assert_eq!(
            csv,
            "Student,ID,SIS User ID,SIS Login ID,Section,lesson01,lesson02\n\
             Points Possible,,,,,10,5\n\
             \"Lee, Ann\",101,S1,ann@x,A,7,5\n\
             '@Bo,102,S2,bo@x,'-B,0,0\n"
        );
        // Without a roster: the submission's id is the student's name.
        let csv = render(
            &batch(&lessons, vec![failed("=x", "", 15)], None),
            Missing::Zero,
        )
        .unwrap();
        assert!(csv.ends_with("\n'=x,,,,,0,0\n"), "{csv}");
    }

    #[test]
    fn a_missing_student_gets_zeros_or_cells_canvas_leaves_alone() {
        let roster = Roster::parse(std::path::Path::new("r.csv"), b"id,canvas_id\ncy,3\n").unwrap();
        let mut cy = failed("cy", "", 10);
        (cy.submission, cy.error, cy.enrolment) = (None, None, Enrolment::Listed(0));
        let class = batch(&[("lesson01", 10)], vec![cy], Some(roster));
        let zero = render(&class, Missing::Zero).unwrap();
        assert!(zero.ends_with("\ncy,3,,,,0\n"), "{zero}");
        let blank = render(&class, Missing::Blank).unwrap();
        assert!(blank.ends_with("\ncy,3,,,,\n"), "{blank}");
    }
}
