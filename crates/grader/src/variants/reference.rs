//! The trusted reference run: the lesson's variant checks built against the reference solution,
//! from the instructors' tree into their own target folder (never one a submission's build or
//! checks can write), run with the student's seeds in one process per lesson that runs no
//! student code. What it observes is what the student's run of each variant check must observe.

use crate::build::reuse::{Recorded, Stamp};
use crate::build::{BuildOutput, Built, CheckBinary, build};
use crate::course::Lesson;
use crate::course::Side;
use crate::course::expected::{Expect, Expected};
use crate::run::Setting;
use crate::run::reference::Job;
use anyhow::{Result, anyhow, bail};
use check_protocol::Observation;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The module of the `lessonNN_hidden` targets holding the variant checks (`variants.rs`).
pub(crate) const MODULE: &str = "variants";

/// How long the reference run of one lesson's variant checks may take.
const LIMIT: Duration = Duration::from_secs(60);

/// What the reference solution observed in one lesson's variant checks.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    /// The observations each variant check must make, and the snapshot texts.
    pub expected: Expected,
    /// Per variant check: the shapes it drew.
    pub shapes: HashMap<String, String>,
    /// The reference executable that observed it (misconceptions are planted into it).
    pub exe: PathBuf,
}

/// The reference solutions' hidden-check executables of `lessons`, built from the instructors'
/// tree at `root` in its usual target folder (as `grade --solutions` builds them; cargo is not
/// run when nothing changed since).
pub fn executables(root: &Path, lessons: &[&Lesson]) -> Result<HashMap<String, PathBuf>> {
    let mut exes = HashMap::new();
    for (id, bins) in binaries(root, lessons)? {
        let lesson = lessons.iter().find(|l| l.id == id).expect("a lesson built");
        let exe = bins.iter().find(|b| b.hidden).ok_or_else(|| {
            anyhow!(
                "{id}: the reference solution has no hidden-check executable (test target `{}`) \
                 for its variant checks",
                lesson.hidden_target()
            )
        })?;
        exes.insert(id, exe.exe.clone());
    }
    Ok(exes)
}

/// Every check executable of the reference solutions of `lessons`, built as [`executables`]
/// builds them.
pub fn binaries(root: &Path, lessons: &[&Lesson]) -> Result<HashMap<String, Vec<CheckBinary>>> {
    let stamp = Stamp::new(root, lessons, Side::Solutions, None);
    let output: BuildOutput = match stamp.load() {
        Recorded::Fresh((output, _)) => output,
        Recorded::Stale(listed) => {
            let output = build(root, lessons, Side::Solutions, None, None)?;
            stamp.keep(&output, &listed.unchanged());
            output
        }
    };
    let mut out = HashMap::new();
    for lesson in lessons {
        match output.lessons.get(&lesson.id) {
            Some(Built::Ok(bins)) => {
                out.insert(lesson.id.clone(), bins.clone());
            }
            Some(Built::Failed(err)) => bail!(
                "{}: the reference solution does not build, so its variant checks cannot be \
                 graded:\n{err}\n  help: run `cargo xtask check {}`",
                lesson.id,
                lesson.id
            ),
            None => bail!("{}: the reference solution was not built", lesson.id),
        }
    }
    Ok(out)
}

/// Runs the variant checks `checks` of the reference executable `exe` with `seeds` (the value of
/// `check_protocol::VARIANT_ENV`), all in one process.
pub fn run(exe: &Path, checks: &[&str], seeds: &str) -> Result<Observed> {
    // The harness runs the named tests in the order of their names: the k-th `begin` is theirs.
    let mut names: Vec<(String, &str)> = checks
        .iter()
        .map(|check| (format!("{MODULE}::{check}"), *check))
        .collect();
    names.sort();
    let job = Job {
        exe: exe.to_path_buf(),
        tests: names.iter().map(|(full, _)| full.clone()).collect(),
        setting: Setting {
            variant_seeds: Some(seeds.to_owned()),
            ..Setting::default()
        },
    };
    let out = crate::run::reference::run(&[job], LIMIT, 1)?
        .pop()
        .expect("one run per job");
    let blocks = split(&out.observations);
    let mut observed = Observed {
        exe: exe.to_path_buf(),
        ..Observed::default()
    };
    for (k, (_, check)) in names.iter().enumerate() {
        let Some(Some(block)) = blocks.get(k) else {
            bail!(
                "the reference solution fails its variant check `{check}` (seeds {seeds}; it must be \
                 a test of the module `{MODULE}` of the hidden checks' target): fix the check or the \
                 solution (`cargo xtask check`)\n{}",
                crate::build::trim_error(&out.output, 30)
            );
        };
        let mut expects = Vec::new();
        for obs in block {
            match obs {
                Observation::Assert { label, .. } => expects.push(Expect::Assert(label.clone())),
                Observation::Snapshot { name, text, exact } => {
                    if name.ends_with(check_protocol::variant::SHAPES_SUFFIX) {
                        observed
                            .shapes
                            .insert((*check).to_owned(), text.trim().to_owned());
                    }
                    observed
                        .expected
                        .snapshots
                        .insert(name.clone(), text.clone());
                    expects.push(Expect::Snapshot {
                        name: name.clone(),
                        exact: *exact,
                    });
                }
                Observation::Begin | Observation::End => {}
            }
        }
        observed
            .expected
            .checks
            .insert((*check).to_owned(), expects);
    }
    Ok(observed)
}

/// The observations of each check of a run, in order: `None` for one that did not end normally
/// (no `end`) or failed an assertion.
fn split(observations: &[Observation]) -> Vec<Option<Vec<Observation>>> {
    let mut blocks: Vec<(Vec<Observation>, bool)> = Vec::new();
    for obs in observations {
        match obs {
            Observation::Begin => blocks.push((Vec::new(), false)),
            Observation::End => {
                if let Some(last) = blocks.last_mut() {
                    last.1 = true;
                }
            }
            other => {
                if let Some(last) = blocks.last_mut() {
                    last.0.push(other.clone());
                }
            }
        }
    }
    blocks
        .into_iter()
        .map(|(body, ended)| {
            let held = body
                .iter()
                .all(|o| !matches!(o, Observation::Assert { passed: false, .. }));
            (ended && held).then_some(body)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_splits_at_each_begin_and_keeps_only_checks_that_ended_well() {
        let snap = |n: &str| Observation::Snapshot {
            name: n.into(),
            text: "1\n".into(),
            exact: true,
        };
        let failed = Observation::Assert {
            label: "x".into(),
            passed: false,
            message: String::new(),
        };
        let run = [
            Observation::Begin,
            snap("a"),
            Observation::End,
            Observation::Begin,
            failed,
            Observation::End,
            Observation::Begin,
            snap("c"),
        ];
        let blocks = split(&run);
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0], Some(vec![snap("a")]));
        assert_eq!(blocks[1], None);
        assert_eq!(blocks[2], None, "no end: it panicked");
    }
}
