//! Feedback pages of a graded class, beside its JSON reports: per student `<id>.html` and `<id>.md`
//! (points, failing checks with message, blame and misconception, the next step) and the class
//! page for instructors. Pages are self-contained (inline style and SVG, no script) and escape
//! whatever a student wrote. Written after `grade --submissions --reports DIR`, or again from the
//! reports by `cargo xtask class-page DIR`.

mod class;
mod class_stats;
mod comments;
mod escape;
mod extras;
mod feedback;
#[cfg(test)]
pub(crate) mod fixture;
mod layout;
mod plots;
mod regrade;
mod rows;
mod student_html;
mod student_md;

pub use extras::Extras;
pub use rows::{ClassRow, SimilarPair, Standing, page_stem};

use crate::report::Report;
use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// The class page's file name.
pub const CLASS_PAGE: &str = "index.html";

/// Writes the pages of every graded student and the class page into `dir`; returns how many
/// students got pages.
pub fn write(dir: &Path, rows: &[ClassRow], pairs: &[SimilarPair]) -> Result<usize> {
    write_with(dir, rows, pairs, &Extras::default())
}

/// [`write`], the pages showing `extras` too.
pub fn write_with(
    dir: &Path,
    rows: &[ClassRow],
    pairs: &[SimilarPair],
    extras: &Extras,
) -> Result<usize> {
    let mut written = 0;
    let mut course = None;
    for row in rows {
        let Standing::Graded(report) = &row.standing else {
            continue;
        };
        course.get_or_insert(report.course.as_str());
        let Some(stem) = page_stem(&row.id) else {
            eprintln!(
                "warning: no feedback page for the student `{}`: {CLASS_PAGE} is the class page\n  \
                 help: rename the submission and grade it again",
                crate::report::student_text::name(&row.id)
            );
            continue;
        };
        let comments = extras.comments.applying(report);
        crate::fsutil::write(
            &dir.join(format!("{stem}.html")),
            &student_html::render(&row.id, report, row.late.as_ref(), &comments),
        )?;
        crate::fsutil::write(
            &dir.join(format!("{stem}.md")),
            &student_md::render(&row.id, report, row.late.as_ref(), &comments),
        )?;
        written += 1;
    }
    let page = class::render(course.unwrap_or("The course"), rows, pairs, extras)?;
    crate::fsutil::write(&dir.join(CLASS_PAGE), &page)?;
    Ok(written)
}

/// The class as its reports folder `dir` tells it: every row of the class run's record
/// ([`crate::official::stored`]) with its report, or (a folder without one) the JSON reports in
/// `dir` (`<id>.json`, sorted by id; files that are not grade reports are skipped with a warning).
pub fn from_reports(dir: &Path) -> Result<Vec<ClassRow>> {
    if !dir.is_dir() {
        bail!(
            "{} is not a folder\n  help: give the reports folder of `cargo xtask grade \
             --submissions DIR --reports RDIR`",
            dir.display()
        );
    }
    if crate::official::stored::read_record(dir)?.is_some() {
        let batch = crate::official::stored::load(dir, None)?;
        return Ok(batch.rows.iter().map(ClassRow::of).collect());
    }
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the reports folder {}", dir.display()))?;
    let mut rows = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let record = path.file_name() == Some(crate::official::stored::RECORD.as_ref());
        if path.extension().is_none_or(|e| e != "json") || !path.is_file() || record {
            continue;
        }
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match serde_json::from_str::<Report>(&text) {
            Ok(report) => rows.push(ClassRow {
                // The real id, when the report names the student its file is named after.
                id: report
                    .student
                    .clone()
                    .filter(|id| crate::official::report_name::stem(id) == stem)
                    .unwrap_or(stem),
                standing: Standing::Graded(Box::new(report)),
                enrolment: crate::official::roster::Enrolment::NoRoster,
                late: None,
            }),
            Err(e) => eprintln!(
                "warning: skipped {}: not a grade report ({e})",
                crate::report::student_text::name(&path.display().to_string())
            ),
        }
    }
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(rows)
}

/// The graded students of `rows` with their reports, for [`crate::official::regrade::diff`].
fn graded(rows: &[ClassRow]) -> Vec<(String, &Report)> {
    rows.iter()
        .filter_map(|r| match &r.standing {
            Standing::Graded(report) => Some((r.id.clone(), report.as_ref())),
            _ => None,
        })
        .collect()
}

/// The class in `dir`: every row of its class run's record (students missing or not graded
/// too, and no report the run did not write), paired with the roster at `roster` when given,
/// with the late policy at `late` applied (reading the roster's time and extension columns), or,
/// in a folder without a record, its reports. Refused (exit 2) when the folder holds none.
pub fn class_of(dir: &Path, late: Option<&Path>, roster: Option<&Path>) -> Result<Vec<ClassRow>> {
    let has_record = dir.join(crate::official::stored::RECORD).is_file();
    let rows = match (late, roster) {
        (None, None) if !has_record => from_reports(dir)?,
        _ => {
            let roster = roster
                .map(crate::official::roster::Roster::load)
                .transpose()?;
            if let (Some(_), None) = (late, &roster) {
                warn_of_the_roster_unread(dir)?;
            }
            let mut batch = crate::official::stored::load(dir, roster)?;
            if let Some(path) = late {
                let policy = crate::official::late::Policy::load(path)?;
                crate::official::late::apply(&mut batch, &policy)?;
            }
            batch.rows.iter().map(ClassRow::of).collect()
        }
    };
    if rows.is_empty() {
        bail!(
            "{} holds no grade report (`<id>.json`)\n  help: grade the class first: `cargo xtask \
             grade --submissions DIR --reports {}`",
            dir.display(),
            dir.display()
        );
    }
    Ok(rows)
}

/// Says on the standard error that the roster the class in `dir` was graded with is not read
/// (no `--roster`), so neither are its students' times and extensions.
fn warn_of_the_roster_unread(dir: &Path) -> Result<()> {
    if let Some(crate::official::stored::Record {
        roster: Some(path), ..
    }) = crate::official::stored::read_record(dir)?
    {
        eprintln!(
            "warning: the class was graded with the roster {path}: its `submitted_at` and \
             `extension` columns are not read\n  help: add --roster {path}"
        );
    }
    Ok(())
}

/// The regrade from the run whose reports are in `old` to the one in `new`
/// (`cargo xtask regrade-diff OLD NEW`); each must hold reports.
pub fn regrade(old: &Path, new: &Path) -> Result<crate::official::regrade::Diff> {
    let (before, after) = (class_of(old, None, None)?, class_of(new, None, None)?);
    Ok(crate::official::regrade::diff(
        &graded(&before),
        &graded(&after),
    ))
}

/// `cargo xtask class-page DIR [--late FILE] [--roster FILE] [--regrade-from OLD]`: the pages of
/// the class in `DIR` ([`class_of`]) written again, with the late policy and the roster at
/// `late`, the instructors' `comments`, and the regrade since the run in `OLD` on the class page
/// when given.
pub fn run(
    dir: &Path,
    late: (Option<&Path>, Option<&Path>),
    regrade_from: Option<&Path>,
    comments: crate::official::comments::Comments,
) -> Result<()> {
    let rows = &class_of(dir, late.0, late.1)?;
    let mut extras = Extras {
        comments,
        ..Extras::default()
    };
    if let Some(old) = regrade_from {
        let before = class_of(old, None, None)?;
        let diff = crate::official::regrade::diff(&graded(&before), &graded(rows));
        extras.regrade = Some((old.display().to_string(), diff));
    }
    let written = write_with(
        dir,
        rows,
        &crate::official::similarity::read_csv(dir)?,
        &extras,
    )?;
    println!(
        "wrote {written} student page(s) (.html, .md) and {} in {}",
        CLASS_PAGE,
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::class::fixture::{batch, graded};
    use crate::official::roster::{Enrolment, Roster};

    #[test]
    fn the_class_page_reads_the_rosters_submission_times_when_given_the_roster() {
        let dir = tempfile::tempdir().unwrap();
        let roster_csv = dir.path().join("roster.csv");
        std::fs::write(
            &roster_csv,
            "id,Submission Time\nann,2026-12-20 23:59:01 +0100\nbo,2026-12-20T23:59:00+01:00\n",
        )
        .unwrap();
        let late = dir.path().join("late.toml");
        std::fs::write(
            &late,
            "deadline = \"2026-12-20T23:59:00+01:00\"\ndeduction = 10\ninterval = \"day\"\n",
        )
        .unwrap();
        let rows = ["ann", "bo"]
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let mut row = graded(id, &[("lesson01", 1)], 1);
                let mut report = fixture::report(crate::report::Build::Ok, vec![]);
                report.student = Some((*id).to_owned());
                (report.lessons[0].score, report.lessons[0].max_score) = (1, 1);
                row.report = Some(report);
                row.enrolment = Enrolment::Listed(i);
                row
            })
            .collect();
        let roster = Roster::load(&roster_csv).unwrap();
        let class = batch(&[("lesson01", 1)], rows, Some(roster));
        let reports = dir.path().join("reports");
        std::fs::create_dir(&reports).unwrap();
        crate::official::stored::write(&reports, &class, Some(&roster_csv), None).unwrap();
        for row in &class.rows {
            let report = row.report.as_ref().unwrap();
            std::fs::write(reports.join(format!("{}.json", row.id)), report.to_json()).unwrap();
        }
        let cost = |rows: &[ClassRow]| -> Vec<Option<f64>> {
            rows.iter()
                .map(|r| r.late.as_ref().map(|l| l.of("lesson01")))
                .collect()
        };
        // ann a second late (a started day: 10% of her point), bo exactly at the deadline.
        let rows = class_of(&reports, Some(&late), Some(&roster_csv)).unwrap();
        assert_eq!(cost(&rows), [Some(0.1), Some(0.0)]);
        // Without the roster its times are not read (a warning says so): no time, no penalty.
        let rows = class_of(&reports, Some(&late), None).unwrap();
        assert_eq!(cost(&rows), [None, None]);
    }
}
