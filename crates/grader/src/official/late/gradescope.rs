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
//! submission's own, not those of `:history:`, which are deeper) and its submitters' `:sid:` and
//! `:email:`. The file is the instructors' (it lies beside the submissions, never in one).

use crate::official::class_run::Batch;
use anyhow::{Context as _, Result};
use std::collections::BTreeMap;
use std::path::Path;

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

/// The submissions of the export metadata `text`, in its order.
pub fn parse(text: &str) -> Vec<Submission> {
    let mut out: Vec<Submission> = Vec::new();
    // The submission's key the lines below belong to (`:submitters:`, `:history:`, ...).
    let mut section = "";
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = line.trim();
        if body.is_empty() || body.starts_with('#') || body == "---" {
            continue;
        }
        if indent == 0 {
            // A submission's folder, the only keys at the top.
            if let Some(key) = body.strip_suffix(':') {
                out.push(Submission {
                    folder: unquote(key),
                    ..Submission::default()
                });
            }
            section = "";
            continue;
        }
        let Some(current) = out.last_mut() else {
            continue;
        };
        // Psych writes a key's list at the key's own depth: `  - ` items belong to the section.
        let field = match (indent, body.strip_prefix("- ")) {
            (2, None) => {
                section = body.split_once(": ").map_or(body, |(key, _)| key);
                if let Some(at) = body.strip_prefix(":created_at:") {
                    current.created_at = Some(unquote(at));
                }
                continue;
            }
            (2, Some(first)) => first,
            (4, None) => body,
            _ => continue,
        };
        if section != ":submitters:" {
            continue;
        }
        for key in [":sid:", ":email:"] {
            if let Some(value) = field.strip_prefix(key).map(unquote)
                && !value.is_empty()
            {
                current.submitters.push(value);
            }
        }
    }
    out
}

/// A YAML scalar as written, without its quotes.
fn unquote(value: &str) -> String {
    let v = value.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = v.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    v.to_owned()
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
    for s in parse(&text) {
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
