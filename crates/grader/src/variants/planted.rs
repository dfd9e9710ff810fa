//! Misconceptions recognised in variant checks: their inputs are drawn per student, so no record
//! can be blessed for them. When one fails, each misconception that could cause it is planted
//! into the reference run, with the student's seed, and what it observes becomes a record the
//! student's failure is matched with, as the blessed records are for fixed checks.

use crate::course::{Check, Lesson};
use crate::judge::misconception::Record;
use crate::judge::{Context, up_to_first_wrong};
use crate::run::Setting;
use crate::run::reference::Job;
use crate::variants::reference::{MODULE, Observed};
use anyhow::Result;
use std::time::Duration;

/// The failed variant checks of one lesson, with its reference run.
#[derive(Debug)]
pub struct Failed<'a> {
    /// The lesson.
    pub lesson: &'a Lesson,
    /// Its reference run with the student's seeds (the executable and what each check observes).
    pub observed: &'a Observed,
    /// Its variant checks that failed.
    pub checks: Vec<&'a Check>,
}

/// The misconceptions of `lesson` that can fail `check`: those of its own exercise and of the
/// exercises it needs.
fn suspects<'l>(lesson: &'l Lesson, check: &Check) -> impl Iterator<Item = &'l str> {
    let own = lesson
        .exercises
        .iter()
        .find(|e| e.checks.iter().any(|c| c.name == check.name))
        .map(|e| e.name.clone());
    let needs = check.needs.clone();
    lesson
        .misconceptions
        .iter()
        .filter(move |m| own.as_deref() == Some(m.exercise.as_str()) || needs.contains(&m.exercise))
        .map(|m| m.id.as_str())
}

/// Per entry of `failed`: the records of its suspect misconceptions, each planted into the
/// reference executable and run with `seeds` (the student's), `workers` runs at a time
/// ([`crate::run::reference::run`]: none in the sandbox and none running the student's code).
pub fn records(
    failed: &[Failed],
    seeds: &str,
    timeout: Duration,
    workers: usize,
) -> Result<Vec<Vec<Record>>> {
    // Per job: the entry of `failed`, the misconception planted and the check.
    let mut suspected: Vec<(usize, &str, &Check)> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for (k, f) in failed.iter().enumerate() {
        for check in &f.checks {
            for id in suspects(f.lesson, check) {
                suspected.push((k, id, check));
                jobs.push(Job {
                    exe: f.observed.exe.clone(),
                    tests: vec![format!("{MODULE}::{}", check.name)],
                    setting: Setting {
                        plant: Some(id.to_owned()),
                        variant_seeds: Some(seeds.to_owned()),
                        ..Setting::default()
                    },
                });
            }
        }
    }
    let runs = crate::run::reference::run(&jobs, timeout, workers)?;
    let mut out = vec![Vec::new(); failed.len()];
    for (&(k, id, check), run) in suspected.iter().zip(&runs) {
        let observed = failed[k].observed;
        let ctx = Context {
            expected: observed.expected.checks.get(&check.name).map(Vec::as_slice),
            snapshots: &observed.expected.snapshots,
            student_src: "",
            misconceptions: &[],
            check: &check.name,
        };
        let record = up_to_first_wrong(&ctx, &run.observations).map(|observations| Record {
            misconception: id.to_owned(),
            check: check.name.clone(),
            observations,
            panic: None,
        });
        out[k].extend(record);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_suspects_its_exercises_misconceptions_and_those_of_what_it_needs() {
        let lesson = crate::course::fixture().lessons.remove(0);
        let check = |name: &str| {
            lesson
                .exercises
                .iter()
                .flat_map(|e| &e.checks)
                .find(|c| c.name == name)
                .unwrap()
                .clone()
        };
        let of = |name: &str| suspects(&lesson, &check(name)).collect::<Vec<_>>();
        assert_eq!(of("m1"), ["split-a", "split-b", "merge-a"]);
        assert_eq!(of("m2"), ["merge-a"]);
        assert_eq!(of("s1"), ["split-a", "split-b"]);
        assert!(of("h1").contains(&"merge-a") && !of("h1").contains(&"split-a"));
    }

    /// A reference executable whose variant check `m1` observes, per misconception planted: a
    /// wrong snapshot (`split-a`), the reference's values (`split-b`), a failed assertion
    /// (`merge-a`); nothing unless it runs `m1` with the student's seeds.
    #[cfg(unix)]
    fn planted_exe(dir: &std::path::Path) -> std::path::PathBuf {
        let script = r#"#!/bin/sh
[ "$3" = variants::m1 ] && [ "$COURSE_CHECK_VARIANT_SEEDS" = seeds ] || exit 2
obs() { printf '%s\n' "$1" >> "$COURSE_CHECK_OBSERVE"; }
obs '{"kind":"begin"}'
case "$COURSE_PLANT" in
  merge-a) obs '{"kind":"assert","label":"x == 1","passed":false,"message":"no"}'; exit 101;;
  split-a) snap='2.0\n';;
  *) snap='1.0\n';;
esac
obs '{"kind":"assert","label":"x == 1","passed":true,"message":""}'
obs "{\"kind\":\"snapshot\",\"name\":\"s\",\"text\":\"$snap\"}"
obs '{"kind":"end"}'
"#;
        crate::run::script_exe(dir, "hidden-check", script)
    }

    #[cfg(unix)]
    #[test]
    fn each_suspect_planted_into_the_reference_run_that_observes_a_wrong_value_becomes_a_record() {
        use crate::course::expected::{Expect, Expected};
        let dir = tempfile::tempdir().unwrap();
        let lesson = crate::course::fixture().lessons.remove(0);
        let check = lesson
            .exercises
            .iter()
            .flat_map(|e| &e.checks)
            .find(|c| c.name == "m1")
            .unwrap();
        let snapshot = Expect::Snapshot {
            name: "s".into(),
            exact: false,
        };
        let observed = Observed {
            expected: Expected {
                checks: [("m1".into(), vec![Expect::Assert("x == 1".into()), snapshot])].into(),
                snapshots: [("s".into(), "1.0\n".into())].into(),
            },
            shapes: Default::default(),
            exe: planted_exe(dir.path()),
        };
        let failed = [Failed {
            lesson: &lesson,
            observed: &observed,
            checks: vec![check],
        }];
        let records = records(&failed, "seeds", Duration::from_secs(20), 2).unwrap();
        assert_eq!(records.len(), 1);
        let found: Vec<(&str, usize)> = records[0]
            .iter()
            .map(|r| (r.misconception.as_str(), r.observations.len()))
            .collect();
        assert_eq!(found, [("split-a", 2), ("merge-a", 1)], "{records:?}");
        assert!(
            records[0]
                .iter()
                .all(|r| r.check == "m1" && r.panic.is_none())
        );
    }
}
