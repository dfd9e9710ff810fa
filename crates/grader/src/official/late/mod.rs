//! Late work (`--late late.toml`): per-lesson deadlines, per-student extensions and a penalty
//! curve in the style of Canvas' late policy ([`curve`]), applied to the gradebook and shown on
//! the student's page. A submission's time comes from the roster's `submitted_at` column (or
//! `Submission Time`, as a Gradescope grades export names it), else the policy's times file (the
//! GitHub Classroom workflow's `submissions.csv`, or any CSV of ids and times), else the
//! policy's `gradescope` folder (a `submission_metadata.json` per student, or a Gradescope bulk
//! export's `submission_metadata.yml`, [`gradescope`]), else the time the class run recorded (a
//! class graded from a Gradescope export records its times). Never from the student's own
//! files: a submission could carry a forged `submission_metadata.json`.

pub mod curve;
pub mod gradescope;
pub mod lateness;
pub mod time;

pub use lateness::{Late, LessonLate, points};

use crate::official::class_run::Batch;
use crate::official::roster::{self, Enrolment};
use anyhow::{Context as _, Result, bail};
use curve::Curve;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// A deadline: as written, and in seconds since the epoch.
#[derive(Debug, Clone, PartialEq)]
pub struct Deadline {
    /// As the policy wrote it.
    pub text: String,
    /// Seconds since the epoch.
    pub at: i64,
}

/// A student's extension: more time after every deadline, or a deadline of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extension {
    /// Seconds added to each deadline.
    Extra(i64),
    /// The student's deadline, seconds since the epoch, for every lesson.
    Until(i64),
}

/// A late policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Every lesson's deadline but those of `lessons`.
    pub deadline: Deadline,
    /// Lessons' own deadlines.
    pub lessons: BTreeMap<String, Deadline>,
    /// The penalty.
    pub curve: Curve,
    /// Extensions by student id (the file's, then the roster's `extension` column).
    pub extensions: BTreeMap<String, Extension>,
    /// Submission times by student id, from the times file (RFC 3339).
    pub times: BTreeMap<String, String>,
}

/// The policy file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    deadline: String,
    #[serde(default)]
    lessons: BTreeMap<String, String>,
    deduction: f64,
    interval: String,
    #[serde(default)]
    floor: f64,
    extensions: Option<String>,
    submitted_at: Option<String>,
    gradescope: Option<String>,
}

impl Policy {
    /// Reads the policy at `path`; its `extensions` and `submitted_at` files are read relative
    /// to it.
    pub fn load(path: &Path) -> Result<Policy> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--late: cannot read {}", path.display()))?;
        let file: File = toml::from_str(&text).with_context(|| {
            format!(
                "{}: not a late policy\n  help: see docs/class-grading.md, \"Late work\"",
                path.display()
            )
        })?;
        let at = |what: &str, t: &str| -> Result<Deadline> {
            Ok(Deadline {
                text: t.to_owned(),
                at: time::instant(t).with_context(|| format!("{}: {what}", path.display()))?,
            })
        };
        let interval = match file.interval.as_str() {
            "day" => 86_400,
            "hour" => 3600,
            other => bail!(
                "{}: interval `{other}`: give `day` or `hour`, as Canvas does",
                path.display()
            ),
        };
        if !(0.0..=100.0).contains(&file.deduction) || !(0.0..=100.0).contains(&file.floor) {
            bail!(
                "{}: `deduction` and `floor` are percents, from 0 to 100",
                path.display()
            );
        }
        let dir = path.parent().unwrap_or(Path::new(""));
        let mut policy = Policy {
            deadline: at("deadline", &file.deadline)?,
            lessons: file
                .lessons
                .iter()
                .map(|(l, t)| Ok((l.clone(), at(l, t)?)))
                .collect::<Result<_>>()?,
            curve: Curve {
                deduction: file.deduction,
                interval,
                floor: file.floor,
            },
            extensions: BTreeMap::new(),
            times: BTreeMap::new(),
        };
        if let Some(f) = &file.extensions {
            for (id, cell, line) in table(&dir.join(f), &["id"], &["extension"])? {
                let ext = extension(&cell).with_context(|| format!("{f}:{line}"))?;
                policy.extensions.insert(id, ext);
            }
        }
        if let Some(f) = &file.submitted_at {
            let times = table(
                &dir.join(f),
                &["id", "repository", "submission"],
                &["submitted_at", "committed", "created_at"],
            )?;
            for (id, cell, line) in times {
                // The Classroom workflow's `no commit before the deadline` rows grade nothing.
                if time::instant(&cell).is_ok() {
                    policy.times.insert(id, cell);
                } else if !cell.is_empty() && !cell.starts_with("no commit") {
                    bail!("{f}:{line}: `{cell}` is not an RFC 3339 time");
                }
            }
        }
        if let Some(f) = &file.gradescope {
            policy.read_gradescope(&dir.join(f))?;
        }
        Ok(policy)
    }

    /// Adds the times of the Gradescope `submission_metadata.json` files in `dir`, one per
    /// student named `<id>.json`, or of the bulk export whose `submission_metadata.yml` is in
    /// `dir` (by submission folder, student id and e-mail), to those the times file did not give.
    fn read_gradescope(&mut self, dir: &Path) -> Result<()> {
        if let Some(times) = gradescope::times(dir)? {
            for (key, at) in times {
                self.times.entry(key).or_insert(at);
            }
            return Ok(());
        }
        let entries = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read the Gradescope folder {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let id = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let Some(at) = gradescope_time(&path) else {
                bail!(
                    "{}: no `created_at` time in RFC 3339 form\n  help: give Gradescope's \
                     submission_metadata.json of the student `{id}`",
                    path.display()
                );
            };
            self.times.entry(id).or_insert(at);
        }
        Ok(())
    }

    /// The deadline of `lesson` for a student with `extension`.
    fn deadline(&self, lesson: &str, extension: Option<Extension>) -> (i64, String) {
        let base = self.lessons.get(lesson).unwrap_or(&self.deadline);
        match extension {
            None => (base.at, base.text.clone()),
            Some(Extension::Extra(s)) => (
                base.at + s,
                format!("{} + {}", base.text, extension_text(s)),
            ),
            Some(Extension::Until(at)) => (at, format!("(extended) {}", format_epoch(at))),
        }
    }

    /// The lateness of a submission handed in at `submitted` (RFC 3339) with `extension`, whose
    /// lessons earned `earned` (id, points, max).
    pub fn lateness(
        &self,
        submitted: &str,
        extension: Option<Extension>,
        earned: &[(String, u32, u32)],
    ) -> Result<Late> {
        let t = time::instant(submitted)?;
        let lessons = earned
            .iter()
            .map(|(id, points, max)| {
                let (deadline, text) = self.deadline(id, extension);
                let seconds = t - deadline;
                LessonLate {
                    lesson: id.clone(),
                    deadline: text,
                    seconds,
                    deduction: self
                        .curve
                        .deduction(f64::from(*points), f64::from(*max), seconds),
                }
            })
            .collect();
        Ok(Late {
            submitted_at: submitted.trim().to_owned(),
            lessons,
            curve: self.curve,
        })
    }
}

/// An extension cell: a duration (`2d`) or an RFC 3339 deadline.
fn extension(cell: &str) -> Result<Extension> {
    match time::duration(cell) {
        Ok(s) => Ok(Extension::Extra(s)),
        Err(_) => Ok(Extension::Until(time::instant(cell).with_context(
            || format!("`{cell}` is neither a duration (`2d`, `36h`) nor an RFC 3339 deadline"),
        )?)),
    }
}

/// `s` seconds as the shortest of days, hours, minutes.
fn extension_text(s: i64) -> String {
    match s {
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s => format!("{}m", s / 60),
    }
}

/// `at` seconds since the epoch in RFC 3339, UTC.
fn format_epoch(at: i64) -> String {
    let [y, m, d, hh, mm, ss] = crate::course::stubs::utc_civil(at);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// The CSV at `path`: per line, the first non-empty of the `ids` columns, the `values` column's
/// cell and the line number.
fn table(path: &Path, ids: &[&str], values: &[&str]) -> Result<Vec<(String, String, u64)>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let keys: Vec<String> = reader.headers()?.iter().map(roster::key).collect();
    let find = |want: &[&str]| want.iter().find_map(|w| keys.iter().position(|k| k == w));
    let (Some(id_at), Some(value_at)) = (find(ids), find(values)) else {
        bail!(
            "{}: needs a column {} and a column {}",
            path.display(),
            ids.join(" or "),
            values.join(" or ")
        );
    };
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.with_context(|| format!("{}: not CSV", path.display()))?;
        let line = record.position().map_or(0, |p| p.line());
        let cell = |i: usize| record.get(i).unwrap_or_default().trim().to_owned();
        out.push((cell(id_at), cell(value_at), line));
    }
    Ok(out)
}

/// The roster's columns that give a submission's time, by [`roster::key`]: ours, and the one of
/// Gradescope's grades export (`Submission Time`).
pub const SUBMITTED_AT: [&str; 2] = ["submitted_at", "submission_time"];

/// Applies `policy` to every graded row of `batch`: its time from the roster's `submitted_at`
/// (or `Submission Time`) column, else the policy's times (its file, then its Gradescope folder;
/// by the row's id, else by its entry's name, a Gradescope export's submission folder), else the
/// one the class run recorded; its extension from
/// the policy's file, else the roster's `extension` column. A graded row without a time is named
/// on the standard error and left without penalty.
pub fn apply(batch: &mut Batch, policy: &Policy) -> Result<()> {
    batch.late = Some(policy.curve);
    for i in 0..batch.rows.len() {
        let row = &batch.rows[i];
        let Some(report) = &row.report else { continue };
        let cell = |keys: &[&str]| match (&batch.roster, row.enrolment) {
            (Some(r), Enrolment::Listed(s)) => r.cell(s, keys).map(str::to_owned),
            _ => None,
        };
        let by_entry = || row.submission.as_ref().and_then(|e| policy.times.get(e));
        let Some(submitted) = cell(&SUBMITTED_AT)
            .or_else(|| policy.times.get(&row.id).or_else(by_entry).cloned())
            .or_else(|| row.submitted_at.clone())
        else {
            eprintln!(
                "warning: no submission time for `{}`: no late penalty\n  help: give the \
                 roster a `submitted_at` column, or the policy a `submitted_at` file",
                crate::report::student_text::name(&row.id)
            );
            continue;
        };
        let extension = match policy.extensions.get(&row.id) {
            Some(e) => Some(*e),
            None => cell(&["extension"]).map(|c| extension(&c)).transpose()?,
        };
        let earned: Vec<(String, u32, u32)> = report
            .lessons
            .iter()
            .map(|l| (l.id.clone(), l.score, l.max_score))
            .collect();
        let late = policy
            .lateness(&submitted, extension, &earned)
            .with_context(|| format!("the submission time of `{}`", row.id))?;
        // The class run's record keeps the time it went by.
        batch.rows[i].submitted_at = Some(submitted);
        batch.rows[i].late = Some(late);
    }
    Ok(())
}

/// The `created_at` of the Gradescope `submission_metadata.json` at `path`, if it has one.
pub fn gradescope_time(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let meta: serde_json::Value = serde_json::from_str(&text).ok()?;
    let at = meta.get("created_at")?.as_str()?;
    time::instant(at).is_ok().then(|| at.to_owned())
}

#[cfg(test)]
mod tests;
