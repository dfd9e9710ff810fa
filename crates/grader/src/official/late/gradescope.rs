//! Submission times from a Gradescope bulk export (*Assignment → Review Grades → Export
//! Submissions*): one folder per submission (`submission_<id>/`) beside `submission_metadata.yml`,
//! which Gradescope writes as YAML with Ruby symbol keys:
//!
//! ```yaml
//! submission_123456:
//!   :submitters:
//!   - :name: Ada Lovelace
//!     :sid: '100'
//!     :email: ada@example.edu
//!   :created_at: 2026-12-20 23:58:59.123456000 +01:00
//!   :score: 10.0
//!   :history: []
//! ```
//!
//! Only what the late policy needs is read: each submission's folder, its `:created_at:` (the
//! submission's own, not those of `:history:`) and its submitters' `:sid:` and `:email:`. The file
//! is the instructors' (it lies beside the submissions, never in one).

use crate::official::class_run::Batch;
use anyhow::{Context as _, Result, anyhow};
use std::collections::BTreeMap;
use std::path::Path;
use yaml_rust2::{Yaml, YamlLoader};

/// The export's metadata file, at the top of the export beside the submissions' folders.
pub const EXPORT_METADATA: &str = "submission_metadata.yml";

/// One submission of the export.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Submission {
    /// Its folder in the export (`submission_123456`).
    pub folder: String,
    /// When it was handed in, as Gradescope wrote it.
    pub created_at: Option<String>,
    /// Its submitters' student ids and e-mail addresses (a group has several).
    pub submitters: Vec<String>,
}

/// The submissions of the export metadata `text`, in its order; an error when it is not YAML or
/// not a mapping of submissions' folders (a misread file must not grade a class as on time).
pub fn parse(text: &str) -> Result<Vec<Submission>> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| anyhow!("not YAML: {e}"))?;
    let Some(doc) = docs.first() else {
        return Ok(Vec::new());
    };
    let top = doc
        .as_hash()
        .ok_or_else(|| anyhow!("not a mapping of the submissions' folders"))?;
    top.iter()
        .map(|(folder, s)| {
            let folder =
                scalar(folder).ok_or_else(|| anyhow!("a submission's folder is not a name"))?;
            let people = s[":submitters"].as_vec().map_or(&[][..], Vec::as_slice);
            let submitters = people
                .iter()
                .flat_map(|p| [scalar(&p[":sid"]), scalar(&p[":email"])])
                .flatten()
                .filter(|v| !v.is_empty())
                .collect();
            Ok(Submission {
                folder,
                created_at: scalar(&s[":created_at"]),
                submitters,
            })
        })
        .collect()
}

/// A YAML scalar as text (a student id may be written as a number).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        _ => None,
    }
}

/// The submission times of the export whose metadata is `dir/submission_metadata.yml` (RFC 3339,
/// see [`super::time::rfc3339`]), by the submission's folder and by each submitter's student id
/// and e-mail address; `None` when `dir` holds no such file. A submission without a time is left
/// out; one whose time cannot be read is an error naming it.
pub fn times(dir: &Path) -> Result<Option<BTreeMap<String, String>>> {
    let path = dir.join(EXPORT_METADATA);
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = BTreeMap::new();
    for s in parse(&text).with_context(|| format!("cannot read {}", path.display()))? {
        let Some(at) = &s.created_at else { continue };
        let at = super::time::rfc3339(at)
            .with_context(|| format!("{}: the `:created_at:` of {}", path.display(), s.folder))?;
        for key in std::iter::once(&s.folder).chain(&s.submitters) {
            out.entry(key.clone()).or_insert_with(|| at.clone());
        }
    }
    Ok(Some(out))
}

/// Gives every row of `batch` that has no submission time yet the one of a Gradescope export's
/// `times` ([`times`]): by the row's entry (its submission's folder), else by its id (a roster's
/// student id or e-mail address). Kept with the class run, so a late policy applied later
/// (`gradebook --late`, `class-page --late`) finds them.
pub fn record_times(batch: &mut Batch, times: &BTreeMap<String, String>) {
    for row in batch.rows.iter_mut().filter(|r| r.submitted_at.is_none()) {
        let by_entry = row.submission.as_ref().and_then(|e| times.get(e));
        row.submitted_at = by_entry.or_else(|| times.get(&row.id)).cloned();
    }
}
