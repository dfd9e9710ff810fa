//! A class run as its reports folder keeps it, so that a gradebook or the pages can be written
//! again without grading: beside the students' `<id>.json` reports, [`RECORD`] lists every row of
//! the gradebook (who, whether the roster listed them, the entry graded, why it could not be,
//! when it was handed in) and the graded lessons with their points.

use crate::official::class_run::{Batch, Row};
use crate::official::report_name;
use crate::official::roster::{Enrolment, Roster};
use crate::official::shard::Shard;
use crate::report::Report;
use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The record's file name in the reports folder. No student's report takes it:
/// [`report_name::stem`] writes an id whose stem would be `class-run` with a leading `_`.
pub const RECORD: &str = "class-run.json";

/// The record's version, raised when a field changes meaning.
const VERSION: u32 = 1;

/// The rows of a class run, without their reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`VERSION`].
    pub version: u32,
    /// The graded lessons, in course order, with their points available.
    pub lessons: Vec<RecordLesson>,
    /// The roster file the run read, as given (`None`: the run had none).
    pub roster: Option<String>,
    /// One per gradebook row, sorted by id.
    pub students: Vec<RecordRow>,
    /// The part of the class graded (`K/N`, `grade --submissions --shard`); `None` for a whole
    /// class (see [`crate::official::merge`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// A graded lesson.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordLesson {
    /// Its id (`lesson02`).
    pub id: String,
    /// Points available.
    pub max: u32,
}

/// One gradebook row, its report aside (`<stem>.json`, [`report_name::stem`] of its id). Its
/// texts may be the student's (an entry's name, an error quoting it): the file holds them with
/// every control or reordering character and every `\` escaped ([`inert`]), which reads back
/// as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordRow {
    /// The student's id.
    #[serde(with = "inert::text")]
    pub id: String,
    /// `listed`, `not_listed` (a submission the roster does not list) or `no_roster`.
    pub roster: String,
    /// The entry graded; `None` for a roster's student who handed nothing in.
    #[serde(with = "inert::optional")]
    pub submission: Option<String>,
    /// Why the submission could not be graded (it then has no report).
    #[serde(with = "inert::optional")]
    pub error: Option<String>,
    /// When it was handed in (RFC 3339), when known.
    #[serde(default, with = "inert::optional")]
    pub submitted_at: Option<String>,
}

/// Text a file may hold without a control character, and read back as it was: `\` as `\\`,
/// and each [`crate::report::student_text::hidden_effect`] character as `\u{hex}`.
mod inert {
    use crate::report::student_text::hidden_effect;

    /// `text` escaped.
    pub fn escape(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c if hidden_effect(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
                c => out.push(c),
            }
        }
        out
    }

    /// `text` as it was before [`escape`]; an escape it cannot read is kept as it is.
    pub fn unescape(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('\\') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            if let Some(after) = rest.strip_prefix("\\\\") {
                out.push('\\');
                rest = after;
                continue;
            }
            let code = rest
                .strip_prefix("\\u{")
                .and_then(|r| r.split_once('}'))
                .and_then(|(hex, after)| {
                    Some((char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, after))
                });
            match code {
                Some((c, after)) => {
                    out.push(c);
                    rest = after;
                }
                None => {
                    out.push('\\');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// `serde(with)` for a text.
    pub mod text {
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(t: &str, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&super::escape(t))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
            Ok(super::unescape(&String::deserialize(d)?))
        }
    }

    /// `serde(with)` for an optional text.
    pub mod optional {
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(t: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
            match t {
                Some(t) => s.serialize_some(&super::escape(t)),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
            Ok(Option::<String>::deserialize(d)?.map(|t| super::unescape(&t)))
        }
    }
}

/// The record of `batch`, graded as part `shard` of its class.
pub fn record(batch: &Batch, roster: Option<&Path>, shard: Option<Shard>) -> Record {
    Record {
        version: VERSION,
        lessons: batch
            .lessons
            .iter()
            .map(|(id, max)| RecordLesson {
                id: id.clone(),
                max: *max,
            })
            .collect(),
        roster: roster.map(|p| p.display().to_string()),
        students: batch
            .rows
            .iter()
            .map(|r| RecordRow {
                id: r.id.clone(),
                roster: match r.enrolment {
                    Enrolment::NoRoster => "no_roster",
                    Enrolment::Listed(_) => "listed",
                    Enrolment::NotListed => "not_listed",
                }
                .to_owned(),
                submission: r.submission.clone(),
                error: r.error.clone(),
                submitted_at: r.submitted_at.clone(),
            })
            .collect(),
        shard: shard.map(|s| s.to_string()),
    }
}

/// Writes the record of `batch` (graded as part `shard` of its class) and every graded row's
/// report into `dir`.
pub fn write(dir: &Path, batch: &Batch, roster: Option<&Path>, shard: Option<Shard>) -> Result<()> {
    for r in &batch.rows {
        if let Some(report) = &r.report {
            let stem = report_name::stem(&r.id);
            crate::fsutil::write(&dir.join(format!("{stem}.json")), &report.to_json())?;
        }
    }
    let text = serde_json::to_string_pretty(&record(batch, roster, shard))?;
    crate::fsutil::write(&dir.join(RECORD), &format!("{text}\n"))
}

/// Reads the record of the reports folder `dir`, if it has one.
pub fn read_record(dir: &Path) -> Result<Option<Record>> {
    let path = dir.join(RECORD);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let record: Record = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a class run's record", path.display()))?;
    if record.version != VERSION {
        bail!(
            "{} is of version {}, this grader reads version {VERSION}\n  help: write the \
             gradebook with the grader that graded the class",
            path.display(),
            record.version
        );
    }
    Ok(Some(record))
}

/// The class graded into `dir` (its [`RECORD`] and reports) for a gradebook: the roster the run
/// read must be given again (`roster`, maybe updated since; see [`load`]).
pub fn load_for_gradebook(dir: &Path, roster: Option<Roster>) -> Result<Batch> {
    if let Some(Record {
        roster: Some(path), ..
    }) = read_record(dir)?
        && roster.is_none()
    {
        bail!(
            "the class was graded with the roster {path}: its gradebook needs it again\n  help: \
             add --roster {path}"
        );
    }
    load(dir, roster)
}

/// The class graded into `dir` (its [`RECORD`] and reports). With a `roster`, its rows are paired
/// with it by id: a roster's student without a row is missing, a row the roster does not list is
/// `not_listed`. Without one, each row is as the run recorded it (a `listed` row then has no
/// roster cells).
pub fn load(dir: &Path, roster: Option<Roster>) -> Result<Batch> {
    let Some(record) = read_record(dir)? else {
        bail!(
            "{} holds no {RECORD}: it is not the reports folder of a class run (or one written \
             before the grader kept it)\n  help: give the folder of `cargo xtask grade \
             --submissions DIR --reports RDIR`, or grade the class again",
            dir.display()
        );
    };
    let lessons: Vec<(String, u32)> = record
        .lessons
        .iter()
        .map(|l| (l.id.clone(), l.max))
        .collect();
    let max: u32 = lessons.iter().map(|(_, m)| m).sum();
    let enrolment = |i: usize, s: &RecordRow| match &roster {
        None => match s.roster.as_str() {
            "listed" => Enrolment::Listed(i),
            "not_listed" => Enrolment::NotListed,
            _ => Enrolment::NoRoster,
        },
        Some(r) => r
            .students
            .iter()
            .position(|student| student.id == s.id)
            .map_or(Enrolment::NotListed, Enrolment::Listed),
    };
    let mut rows = Vec::new();
    // With a roster, its students without a submission are found again below.
    let kept = record
        .students
        .iter()
        .enumerate()
        .filter(|(_, s)| s.submission.is_some() || roster.is_none());
    for (i, s) in kept {
        let outcome = match (&s.submission, &s.error) {
            (None, _) => None,
            (_, Some(error)) => Some(Err(error.clone())),
            (_, None) => Some(Ok(read_report(dir, &s.id)?)),
        };
        let mut row = Row::new(
            (&s.id, enrolment(i, s), s.submission.clone()),
            outcome,
            max,
            0.0,
        );
        row.submitted_at = s.submitted_at.clone();
        rows.push(row);
    }
    if let Some(r) = &roster {
        for (i, student) in r.students.iter().enumerate() {
            if !rows.iter().any(|row| row.id == student.id) {
                let who = (student.id.as_str(), Enrolment::Listed(i), None);
                rows.push(Row::new(who, None, max, 0.0));
            }
        }
    }
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Batch {
        lessons,
        roster,
        rows,
        first_seconds: 0.0,
        total_seconds: 0.0,
        parallel: 1,
        late: None,
        builds: (0, 0),
        cpu_seconds: None,
    })
}

/// `cargo xtask gradebook RDIR`: the gradebook of the class graded into `dir`, laid out as `opts`
/// say, with the `roster` at this path, written to `output` (else the standard output).
pub fn write_gradebook(
    dir: &Path,
    opts: crate::official::gradebook::Options,
    roster: Option<&Path>,
    late: Option<&Path>,
    output: Option<&Path>,
) -> Result<()> {
    let roster = roster.map(Roster::load).transpose()?;
    crate::official::gradebook::check(opts.format, roster.as_ref())?;
    let policy = late.map(crate::official::late::Policy::load).transpose()?;
    let mut batch = load_for_gradebook(dir, roster)?;
    if let Some(policy) = &policy {
        crate::official::late::apply(&mut batch, policy)?;
    }
    crate::official::gradebook::write(&batch, opts, output)
}

/// The report of the student `id` in `dir`.
pub fn read_report(dir: &Path, id: &str) -> Result<Report> {
    let path = dir.join(format!("{}.json", report_name::stem(id)));
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {}, the report of `{}`",
            path.display(),
            crate::report::student_text::name(id)
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a grade report", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::class::fixture::{batch, failed, graded as graded_row};
    use crate::official::gradebook::{self, Format, Missing, Options};
    use std::path::PathBuf;

    /// A report whose lessons carry `row`'s points.
    fn with_report(mut row: Row, lessons: &[(&str, u32)]) -> Row {
        let mut report = crate::official::pages::fixture::report(crate::report::Build::Ok, vec![]);
        report.student = Some(row.id.clone());
        report.official = true;
        report.lessons = lessons
            .iter()
            .map(|(id, max)| crate::report::LessonReport {
                id: (*id).to_owned(),
                score: row.lessons.get(*id).copied().unwrap_or(0),
                max_score: *max,
                ..report.lessons[0].clone()
            })
            .collect();
        report.score = row.score;
        report.max_score = lessons.iter().map(|(_, m)| m).sum();
        row.max = report.max_score;
        row.report = Some(report);
        row
    }

    #[test]
    fn the_gradebook_from_the_stored_class_is_the_one_written_while_grading() {
        let lessons = [("lesson01", 10), ("lesson02", 5)];
        let roster = Roster::parse(
            Path::new("roster.csv"),
            b"id,name,email,canvas_id\nann,Ann,ann@x,1\nbo,Bo,bo@x,2\ncy,Cy,cy@x,3\n\
              =weird id,W,w@x,4\n",
        )
        .unwrap();
        let mut ann = with_report(
            graded_row("ann", &[("lesson01", 7), ("lesson02", 5)], 15),
            &lessons,
        );
        ann.enrolment = Enrolment::Listed(0);
        ann.submitted_at = Some("2026-12-20T23:59:00+01:00".into());
        let mut bo = failed("bo", "bad zip: \"x\"\nsecond line", 15);
        bo.enrolment = Enrolment::Listed(1);
        let mut cy = failed("cy", "", 15);
        (cy.submission, cy.error, cy.enrolment) = (None, None, Enrolment::Listed(2));
        let mut weird = with_report(graded_row("=weird id", &[("lesson01", 3)], 15), &lessons);
        weird.enrolment = Enrolment::Listed(3);
        let mut eve = with_report(graded_row("eve", &[("lesson02", 1)], 15), &lessons);
        eve.enrolment = Enrolment::NotListed;
        // Sorted by id, as a class run sorts its rows.
        let graded_batch = batch(
            &lessons,
            vec![weird, ann, bo, cy, eve],
            Some(roster.clone()),
        );
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &graded_batch,
            Some(&PathBuf::from("roster.csv")),
            None,
        )
        .unwrap();
        let stored = load(dir.path(), Some(roster.clone())).unwrap();
        assert_eq!(stored.rows.iter().filter(|r| r.report.is_some()).count(), 3);
        for format in [Format::Csv, Format::Canvas, Format::Moodle] {
            for missing in [Missing::Zero, Missing::Blank] {
                let opts = Options { format, missing };
                assert_eq!(
                    gradebook::render(&stored, opts).unwrap(),
                    gradebook::render(&graded_batch, opts).unwrap(),
                    "{format:?} {missing:?}"
                );
            }
        }
        // With a late policy: ann's recorded time is a minute past the deadline.
        let policy = crate::official::late::Policy {
            deadline: crate::official::late::Deadline {
                text: "2026-12-20T23:58:00+01:00".into(),
                at: crate::official::late::time::instant("2026-12-20T23:58:00+01:00").unwrap(),
            },
            lessons: Default::default(),
            curve: crate::official::late::curve::Curve {
                deduction: 10.0,
                interval: 3600,
                floor: 0.0,
            },
            extensions: Default::default(),
            times: Default::default(),
        };
        let (mut graded_late, mut stored_late) = (graded_batch.clone(), stored.clone());
        crate::official::late::apply(&mut graded_late, &policy).unwrap();
        crate::official::late::apply(&mut stored_late, &policy).unwrap();
        let opts = Options::default();
        let csv = gradebook::render(&stored_late, opts).unwrap();
        assert_eq!(csv, gradebook::render(&graded_late, opts).unwrap());
        assert!(csv.contains("\nann,Ann,ann@x,1,ann.zip,10.5,15,"), "{csv}");
        // The roster is needed again; a folder without a record is refused.
        let e = load_for_gradebook(dir.path(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("add --roster roster.csv"), "{e}");
        let e = load(&dir.path().join("nowhere"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds no class-run.json"), "{e}");
    }

    #[test]
    fn the_record_holds_no_control_character_and_reads_back_every_text() {
        for text in [
            "plain",
            "eve\x1b[2J\x07\r\u{7f}\u{9b}\u{202e}x",
            "a\\b\\u{1b}\\\\",
            "\\u{zz}\\u{110000}\\",
            "王芳 \n",
        ] {
            let escaped = inert::escape(text);
            assert!(
                !escaped
                    .chars()
                    .any(crate::report::student_text::hidden_effect)
            );
            assert_eq!(inert::unescape(&escaped), text, "{escaped}");
        }
    }

    #[test]
    fn a_new_roster_pairs_the_stored_rows_by_id() {
        let lessons = [("lesson01", 10)];
        let ann = with_report(graded_row("ann", &[("lesson01", 7)], 10), &lessons);
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &batch(&lessons, vec![ann], None), None, None).unwrap();
        let roster = Roster::parse(Path::new("r.csv"), b"id\nbo\nann\n").unwrap();
        let stored = load(dir.path(), Some(roster)).unwrap();
        let got: Vec<(&str, Enrolment, bool)> = stored
            .rows
            .iter()
            .map(|r| (r.id.as_str(), r.enrolment, r.submission.is_some()))
            .collect();
        assert_eq!(
            got,
            [
                ("ann", Enrolment::Listed(1), true),
                ("bo", Enrolment::Listed(0), false)
            ]
        );
    }
}
