//! The course's own gradebook (`--gradebook-format csv`): every column the run knows (see
//! [`render`]).

use super::cells::{Missing, after_penalty, blank, points, text, to_csv};
use crate::official::class_run::{Batch, Row};
use crate::official::roster::Enrolment;
use anyhow::Result;

/// The gradebook of `batch` as CSV.
///
/// `id,total,max,status,<lesson id>,<lesson id> max…,official,modified_files,isolation,error`;
/// `status` is `ok`, `compile_error (<lesson ids>)`, `error` (the `error` cell says why) or, for a
/// roster's student who handed nothing in, `missing`. With a roster, its other columns follow
/// `id`, then `submission` (the entry graded), and `roster` (`listed` or `not_in_roster`) follows
/// `status`.
pub fn render(batch: &Batch, missing: Missing) -> Result<String> {
    let columns = batch.roster.as_ref().map(|r| r.columns.as_slice());
    let mut header = vec!["id".to_owned()];
    if let Some(columns) = columns {
        header.extend(columns.iter().map(|c| text(c)));
        header.push("submission".into());
    }
    header.extend(["total".into(), "max".into(), "status".into()]);
    if columns.is_some() {
        header.push("roster".into());
    }
    for (id, _) in &batch.lessons {
        header.extend([id.clone(), format!("{id} max")]);
    }
    header.extend(["official", "modified_files", "isolation", "error"].map(String::from));
    if batch.late.is_some() {
        header.extend(["submitted_at", "late_penalty"].map(String::from));
    }
    let mut records = vec![header];
    for r in &batch.rows {
        let mut rec = vec![text(&r.id)];
        if let Some(columns) = columns {
            match (&batch.roster, r.enrolment) {
                (Some(roster), Enrolment::Listed(s)) => {
                    rec.extend(roster.students[s].cells.iter().map(|c| text(c)));
                }
                _ => rec.extend(columns.iter().map(|_| String::new())),
            }
            rec.push(text(r.submission.as_deref().unwrap_or_default()));
        }
        let total = if blank(r, missing) {
            String::new()
        } else {
            after_penalty(r, None)
        };
        rec.extend([total, r.max.to_string(), status(r)]);
        if columns.is_some() {
            let unknown = r.enrolment == Enrolment::NotListed;
            rec.push(if unknown { "not_in_roster" } else { "listed" }.into());
        }
        for (id, max) in &batch.lessons {
            rec.extend([points(r, id, missing), max.to_string()]);
        }
        rec.push(r.official.to_string());
        rec.push(r.modified.to_string());
        rec.push(r.isolation.to_string());
        rec.push(text(r.error.as_deref().unwrap_or_default()));
        if batch.late.is_some() {
            let late = r.late.as_ref();
            rec.push(text(late.map_or("", |l| l.submitted_at.as_str())));
            rec.push(late.map_or(String::new(), |l| {
                crate::official::late::lateness::points(l.total())
            }));
        }
        records.push(rec);
    }
    to_csv(records)
}

/// A row's `status` cell: `missing` when nothing was handed in, `error` when it could not be
/// graded, `compile_error (<lesson ids>)` when a lesson did not compile, else `ok`.
pub fn status(row: &Row) -> String {
    if row.submission.is_none() {
        return "missing".to_owned();
    }
    let Some(report) = &row.report else {
        return "error".to_owned();
    };
    let broken: Vec<&str> = report
        .lessons
        .iter()
        .filter(|l| l.build == crate::report::Build::CompileError)
        .map(|l| l.id.as_str())
        .collect();
    if broken.is_empty() {
        "ok".to_owned()
    } else {
        format!("compile_error ({})", broken.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::class::fixture::{batch, failed};
    use crate::official::roster::Roster;

    #[test]
    fn cells_that_start_like_a_formula_stay_text() {
        let batch = batch(
            &[("lesson01", 10)],
            vec![
                failed("=HYPERLINK(\"http://x\")", "+1", 10),
                failed("@sum", "-2, \t", 10),
                failed("a=b", "ok-ish", 10),
            ],
            None,
        );
        let csv = render(&batch, Missing::Zero).unwrap();
        let lines: Vec<&str> = csv.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "\"'=HYPERLINK(\"\"http://x\"\")\",0,10,error,0,10,false,0,none,'+1",
                "'@sum,0,10,error,0,10,false,0,none,\"'-2, \\t\"",
                "a=b,0,10,error,0,10,false,0,none,ok-ish",
            ]
        );
    }

    #[test]
    fn the_gradebook_holds_no_control_character_and_no_huge_cell() {
        let forged = "\x1b[2J\x1b[HTotal: 26/26\u{7}\r\u{9b}\u{7f}";
        let batch = batch(
            &[("lesson01", 10)],
            vec![
                failed(
                    &format!("eve{forged}"),
                    &format!("archive entry `{forged}\nforged` is bad"),
                    10,
                ),
                failed("mallory", &"n".repeat(1 << 20), 10),
            ],
            None,
        );
        let csv = render(&batch, Missing::Zero).unwrap();
        assert!(
            !csv.bytes().any(|b| (b < 0x20 && b != b'\n') || b == 0x7f),
            "{csv:?}"
        );
        assert!(!csv.contains('\u{9b}'));
        assert!(csv.contains("eve\\u{1b}[2J\\u{1b}[HTotal: 26/26\\u{7}\\r\\u{9b}\\u{7f}"));
        assert!(csv.contains("\\nforged` is bad"));
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[2].len() < 2100, "{}", lines[2].len());
        assert!(lines[2].ends_with(&format!("… ({} more characters)", (1 << 20) - 2000)));
    }

    #[test]
    fn the_gradebook_quotes_errors_and_zeroes_missing_lessons() {
        let batch = batch(
            &[("lesson01", 10), ("lesson02", 5)],
            vec![failed("bob", "bad, \"zip\"", 15)],
            None,
        );
        assert_eq!(
            render(&batch, Missing::Zero).unwrap(),
            "id,total,max,status,lesson01,lesson01 max,lesson02,lesson02 max,official,\
             modified_files,isolation,error\n\
             bob,0,15,error,0,10,0,5,false,0,none,\"bad, \"\"zip\"\"\"\n"
        );
    }

    #[test]
    fn a_roster_adds_its_columns_the_submission_and_whether_it_lists_the_student() {
        let roster = Roster::parse(
            std::path::Path::new("roster.csv"),
            b"id,name,email\nbob,=Bob(),b@x\ncarol,Carol,c@x\n",
        )
        .unwrap();
        let mut carol = failed("carol", "", 5);
        carol.error = None;
        carol.submission = None;
        carol.enrolment = Enrolment::Listed(1);
        let mut bob = failed("bob", "bad", 5);
        bob.enrolment = Enrolment::Listed(0);
        let mut eve = failed("eve", "bad", 5);
        eve.enrolment = Enrolment::NotListed;
        let class = batch(&[("lesson02", 5)], vec![bob, carol, eve], Some(roster));
        let csv = render(&class, Missing::Zero).unwrap();
        assert_eq!(
            csv,
            "id,name,email,submission,total,max,status,roster,lesson02,lesson02 max,official,\
             modified_files,isolation,error\n\
             bob,'=Bob(),b@x,bob.zip,0,5,error,listed,0,5,false,0,none,bad\n\
             carol,Carol,c@x,,0,5,missing,listed,0,5,false,0,none,\n\
             eve,,,eve.zip,0,5,error,not_in_roster,0,5,false,0,none,bad\n"
        );
        // `--missing blank`: carol's points are left empty, the others' zeros stay.
        let csv = render(&class, Missing::Blank).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[2],
            "carol,Carol,c@x,,,5,missing,listed,,5,false,0,none,"
        );
        assert!(lines[1].contains(",0,5,error,listed,0,5,"), "{}", lines[1]);
    }
}
