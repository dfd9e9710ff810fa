//! Feedback pages of a graded class, beside its JSON reports: per student `<id>.html` and `<id>.md`
//! (points, failing checks with message, blame and misconception, the next step) and the class
//! page for instructors. Pages are self-contained (inline style and SVG, no script) and escape
//! whatever a student wrote. Written after `grade --submissions --reports DIR`, or again from the
//! reports by `cargo xtask class-page DIR`.

mod class;
mod class_stats;
mod escape;
mod feedback;
#[cfg(test)]
pub(crate) mod fixture;
mod layout;
mod plots;
mod rows;
mod student_html;
mod student_md;

pub use rows::{ClassRow, SimilarPair, Standing, page_stem};

use crate::report::Report;
use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// The class page's file name.
pub const CLASS_PAGE: &str = "index.html";

/// Writes the pages of every graded student and the class page into `dir`; returns how many
/// students got pages.
pub fn write(dir: &Path, rows: &[ClassRow], pairs: &[SimilarPair]) -> Result<usize> {
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
        crate::fsutil::write(
            &dir.join(format!("{stem}.html")),
            &student_html::render(&row.id, report, row.late.as_ref()),
        )?;
        crate::fsutil::write(
            &dir.join(format!("{stem}.md")),
            &student_md::render(&row.id, report, row.late.as_ref()),
        )?;
        written += 1;
    }
    let page = class::render(course.unwrap_or("The course"), rows, pairs)?;
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

/// `cargo xtask class-page DIR`: the pages written again from the reports in `DIR`, with the
/// late policy at `late` (a class run's record is needed for it).
pub fn run(dir: &Path, late: Option<&Path>) -> Result<()> {
    let rows = match late {
        None => from_reports(dir)?,
        Some(path) => {
            let policy = crate::official::late::Policy::load(path)?;
            let mut batch = crate::official::stored::load(dir, None)?;
            crate::official::late::apply(&mut batch, &policy)?;
            batch.rows.iter().map(ClassRow::of).collect()
        }
    };
    if rows.is_empty() {
        bail!(
            "{} holds no grade report (`<id>.json`): no page to write\n  help: grade the class \
             first: `cargo xtask grade --submissions DIR --reports {}`",
            dir.display(),
            dir.display()
        );
    }
    let written = write(dir, &rows, &crate::official::similarity::read_csv(dir)?)?;
    println!(
        "wrote {written} student page(s) (.html, .md) and {} in {}",
        CLASS_PAGE,
        dir.display()
    );
    Ok(())
}
