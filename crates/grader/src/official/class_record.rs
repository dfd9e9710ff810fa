//! What a class run keeps beside its reports (`RDIR/class.record`, JSON), so that a class can be put
//! back together from its report folders without grading ([`crate::official::merge`]): the
//! graded lessons, the roster, the shard, and per student what the reports do not hold (whose
//! row it is, the entry graded, why a submission could not be graded). The points stay in the
//! reports.

use crate::official::class_run::{Batch, Row};
use crate::official::roster::{Enrolment, Roster, Student};
use crate::official::shard::Shard;
use crate::report::Report;
use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record's file name in a reports folder: not `*.json`, the reports' (`<id>.json`), so no
/// student's id can name it and readers of the reports pass it by.
pub const FILE: &str = "class.record";

/// The record's layout version.
const VERSION: u32 = 1;

/// A class run's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The layout version ([`VERSION`]).
    pub version: u32,
    /// The part of the class graded (`K/N`), `None` for a whole class.
    pub shard: Option<String>,
    /// The graded lessons, in course order: `(id, max points)`.
    pub lessons: Vec<(String, u32)>,
    /// The roster the run read.
    pub roster: Option<RosterRecord>,
    /// One per row of the run's gradebook, by id.
    pub rows: Vec<RowRecord>,
}

/// A roster as read (its file's columns and students).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RosterRecord {
    /// The file it was read from ([`encode`]d).
    pub path: String,
    /// Its columns other than `id` and `submission`.
    pub columns: Vec<String>,
    /// Per student: id, submission cell, the other cells, line.
    pub students: Vec<(String, Option<String>, Vec<String>, u64)>,
}

/// A row's part that its report does not hold. Every text of the record (here and in
/// [`RosterRecord`]) is [`encode`]d.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowRecord {
    /// The student's id.
    pub id: String,
    /// The roster's index of the student; `None` without a roster or for one it does not list.
    pub listed: Option<usize>,
    /// The entry graded; `None` for a roster's student who handed nothing in.
    pub submission: Option<String>,
    /// Why the submission could not be graded.
    pub error: Option<String>,
    /// Whether the row has a report (`<id>.json`).
    pub graded: bool,
}

impl Record {
    /// The record of `batch`, graded as part `shard` of its class.
    pub fn of(batch: &Batch, shard: Option<Shard>) -> Record {
        Record {
            version: VERSION,
            shard: shard.map(|s| s.to_string()),
            lessons: batch.lessons.clone(),
            roster: batch.roster.as_ref().map(|r| RosterRecord {
                path: encode(&r.path.display().to_string()),
                columns: r.columns.iter().map(|c| encode(c)).collect(),
                students: r
                    .students
                    .iter()
                    .map(|s| {
                        let cells = s.cells.iter().map(|c| encode(c)).collect();
                        (
                            encode(&s.id),
                            s.submission.as_deref().map(encode),
                            cells,
                            s.line,
                        )
                    })
                    .collect(),
            }),
            rows: batch
                .rows
                .iter()
                .map(|r| RowRecord {
                    id: encode(&r.id),
                    listed: match r.enrolment {
                        Enrolment::Listed(i) => Some(i),
                        _ => None,
                    },
                    submission: r.submission.as_deref().map(encode),
                    error: r.error.as_deref().map(encode),
                    graded: r.report.is_some(),
                })
                .collect(),
        }
    }

    /// The record in the reports folder `dir`.
    pub fn read(dir: &Path) -> Result<Record> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read {}: a reports folder of `grade --submissions --reports` holds it\n  \
                 help: grade the class (or its shard) into that folder again",
                path.display()
            )
        })?;
        let record: Record = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a class run's record", path.display()))?;
        if record.version != VERSION {
            bail!(
                "{} has layout version {}, this grader reads {VERSION}",
                path.display(),
                record.version
            );
        }
        Ok(record)
    }

    /// The roster as the gradebooks read it.
    pub fn roster(&self) -> Option<Roster> {
        self.roster.as_ref().map(|r| Roster {
            path: PathBuf::from(decode(&r.path)),
            columns: r.columns.iter().map(|c| decode(c)).collect(),
            students: r
                .students
                .iter()
                .map(|(id, submission, cells, line)| Student {
                    id: decode(id),
                    submission: submission.as_deref().map(decode),
                    cells: cells.iter().map(|c| decode(c)).collect(),
                    line: *line,
                })
                .collect(),
        })
    }
}

/// Writes each graded row's JSON report (`<id>.json`) and the record of `batch` into `dir`.
pub fn write(dir: &Path, batch: &Batch, shard: Option<Shard>) -> Result<()> {
    for r in &batch.rows {
        if let Some(report) = &r.report {
            let stem = crate::official::report_name::stem(&r.id);
            crate::fsutil::write(&dir.join(format!("{stem}.json")), &report.to_json())?;
        }
    }
    write_record(dir, batch, shard)
}

/// Writes the record of `batch` (graded as part `shard`) into `dir`.
pub fn write_record(dir: &Path, batch: &Batch, shard: Option<Shard>) -> Result<()> {
    let record = serde_json::to_string_pretty(&Record::of(batch, shard))?;
    crate::fsutil::write(&dir.join(FILE), &format!("{record}\n"))
}

/// The gradebook row of `r`, with its `report` (read from `<id>.json`) when it has one, as the
/// class run made it.
pub fn row(record: &Record, r: &RowRecord, report: Option<Report>) -> Row {
    let max = record.lessons.iter().map(|(_, m)| m).sum();
    let enrolment = match (&record.roster, r.listed) {
        (None, _) => Enrolment::NoRoster,
        (Some(_), Some(i)) => Enrolment::Listed(i),
        (Some(_), None) => Enrolment::NotListed,
    };
    let blank = Row {
        id: decode(&r.id),
        enrolment,
        submission: r.submission.as_deref().map(decode),
        score: 0,
        max,
        lessons: BTreeMap::new(),
        official: false,
        modified: 0,
        isolation: crate::run::Isolation::None,
        error: r.error.as_deref().map(decode),
        seconds: 0.0,
        report: None,
    };
    match report {
        None => blank,
        Some(report) => Row {
            score: report.score,
            max: report.max_score,
            lessons: report
                .lessons
                .iter()
                .map(|l| (l.id.clone(), l.score))
                .collect(),
            official: report.official,
            modified: report.modified_files.len(),
            isolation: report.isolation,
            report: Some(report),
            ..blank
        },
    }
}

/// The report of `id` in `dir` (`<id>.json`, see [`crate::official::report_name`]).
pub fn read_report(dir: &Path, id: &str) -> Result<Report> {
    let path = dir.join(format!("{}.json", crate::official::report_name::stem(id)));
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {}, the report of `{}` its folder's {FILE} names",
            path.display(),
            crate::report::student_text::name(id)
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a grade report", path.display()))
}

/// The rows of the run whose `record` is in `dir`, each with its report, as the run made them.
pub fn rows(dir: &Path, record: &Record) -> Result<Vec<Row>> {
    record
        .rows
        .iter()
        .map(|r| {
            let report = r
                .graded
                .then(|| read_report(dir, &decode(&r.id)))
                .transpose()?;
            Ok(row(record, r, report))
        })
        .collect()
}

/// The class run (or part) whose reports and record are in `dir`, without grading: its
/// gradebook, in any layout, is the one the run wrote.
pub fn load(dir: &Path) -> Result<Batch> {
    let record = Record::read(dir)?;
    Ok(Batch {
        lessons: record.lessons.clone(),
        roster: record.roster(),
        rows: rows(dir, &record)?,
        first_seconds: 0.0,
        total_seconds: 0.0,
        parallel: 1,
        builds: (0, 0),
    })
}

/// True for a character the record writes as `%XX`: `%` itself, a control character (line
/// feeds, escapes, C1) or one that reorders text.
fn encoded(c: char) -> bool {
    c == '%'
        || c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` as the record writes it: every [`encoded`] character as `%XX` per UTF-8 byte, so the
/// file shows nothing a student's id or file name could do to a terminal, and [`decode`] gives
/// `text` back exactly.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if encoded(c) {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The text [`encode`] wrote as `text`.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_written_printable_and_read_back_exactly() {
        for text in [
            "bob",
            "=x\u{1b}[2J%41\u{9b}\u{202e}é\nnext",
            "100%",
            "%%",
            "",
        ] {
            let written = encode(text);
            assert!(
                !written.chars().any(encoded) || written.contains('%'),
                "{written}"
            );
            assert!(
                !written.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{written}"
            );
            assert_eq!(decode(&written), text);
        }
        assert_eq!(encode("a%\u{1b}é"), "a%25%1Bé");
    }
}
