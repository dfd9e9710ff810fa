//! The fairness proof of `cargo xtask check`: a catalogued misconception, or code fitted to the
//! fixed checks (the built-in plant `fitted-to-visible`), keeps the same points whatever the
//! student's id. Each lesson's variant checks run in a sweep (`course_check::variant::check`):
//! one process runs every variant check's body for the seeds of [`IDS`] ids, once against the
//! reference and once per plant, and each seed's outcome is judged against the reference's
//! observations for that seed.

use crate::course::Lesson;
use crate::course::expected::Expect;
use crate::judge::{Context, holds};
use crate::run::reference::Job as Process;
use crate::run::runs::Listed;
use crate::run::{Runner, Setting};
use crate::variants::reference::MODULE;
use anyhow::Result;
use check_protocol::Observation;
use check_protocol::variant::{SHAPES_SUFFIX, SWEEP_RETURNED, SWEEP_SEED_SUFFIX};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How many students' ids each plant is tried under.
pub const IDS: usize = 64;

/// How long one lesson's sweep (or the fitted plant's recording of its fixed checks) may take.
const LIMIT: Duration = Duration::from_secs(300);

/// How many ids a problem names.
const NAMED: usize = 4;

/// The id of the `n`-th student of the proof.
fn id(n: usize) -> String {
    format!("id-{n}")
}

/// One seed's run of one variant check's body.
#[derive(Debug, Clone, Default, PartialEq)]
struct SeedRun {
    /// What it observed, the marker and the returned assertion left out.
    observations: Vec<Observation>,
    /// The body returned (no panic).
    returned: bool,
}

impl SeedRun {
    /// The shapes it drew (its `…__variant_shapes` snapshot).
    fn shapes(&self) -> &str {
        self.observations
            .iter()
            .find_map(|o| match o {
                Observation::Snapshot { name, text, .. } if name.ends_with(SHAPES_SUFFIX) => {
                    Some(text.trim())
                }
                _ => None,
            })
            .unwrap_or("?")
    }

    /// Whether `self` is what the reference's run `reference` of the same seed observed.
    fn passes(&self, reference: &SeedRun, check: &str) -> bool {
        let mut expected = Vec::new();
        let mut snapshots = HashMap::new();
        for o in &reference.observations {
            match o {
                Observation::Assert { label, .. } => expected.push(Expect::Assert(label.clone())),
                Observation::Snapshot { name, text, exact } => {
                    snapshots.insert(name.clone(), text.clone());
                    expected.push(Expect::Snapshot {
                        name: name.clone(),
                        exact: *exact,
                    });
                }
                Observation::Begin | Observation::End => {}
            }
        }
        let ctx = Context {
            expected: Some(&expected),
            snapshots: &snapshots,
            student_src: "",
            misconceptions: &[],
            check,
        };
        self.returned && holds(&ctx, &self.observations)
    }
}

/// Per check (in the order of `names`), per seed: the runs of a sweep's observations. A seed the
/// process never reached (it timed out or crashed) is missing.
fn split(observations: &[Observation], names: &[&str]) -> HashMap<String, Vec<SeedRun>> {
    let mut out: HashMap<String, Vec<SeedRun>> = HashMap::new();
    let mut check: Option<&str> = None;
    let mut begun = 0;
    for o in observations {
        match o {
            Observation::Begin => {
                check = names.get(begun).copied();
                begun += 1;
            }
            Observation::End => check = None,
            Observation::Snapshot { name, .. } if name.ends_with(SWEEP_SEED_SUFFIX) => {
                if let Some(c) = check {
                    out.entry(c.to_owned())
                        .or_default()
                        .push(SeedRun::default());
                }
            }
            Observation::Assert { label, passed, .. } if label == SWEEP_RETURNED => {
                if let Some(run) = check.and_then(|c| out.get_mut(c)?.last_mut()) {
                    run.returned = *passed;
                }
            }
            other => {
                if let Some(run) = check.and_then(|c| out.get_mut(c)?.last_mut()) {
                    run.observations.push(other.clone());
                }
            }
        }
    }
    out
}

/// What a plant does with one variant check over the ids: the ids (indices) whose variant it
/// passes, when that depends on the id.
fn unfair(passes: &[bool]) -> Option<Vec<usize>> {
    let passed: Vec<usize> = (0..passes.len()).filter(|&n| passes[n]).collect();
    (!passed.is_empty() && passed.len() < passes.len()).then_some(passed)
}

/// One sweep to run: a lesson's variant checks under a plant (`None`: the reference).
struct Job<'a> {
    lesson: &'a Lesson,
    plant: Option<&'a str>,
}

/// The variant checks of `lesson`, sorted by name (the order the harness runs them in).
fn variant_checks(lesson: &Lesson) -> Vec<&str> {
    let mut names: Vec<&str> = lesson
        .exercises
        .iter()
        .flat_map(|e| &e.checks)
        .filter(|c| c.variant)
        .map(|c| c.name.as_str())
        .collect();
    names.sort();
    names
}

/// The sweep of `lesson`'s variant checks: per exercise, the seeds of the proof's ids.
fn sweep_value(lesson: &Lesson) -> String {
    let key = super::LOCAL_KEY;
    let seeds: Vec<(&str, Vec<u64>)> = lesson
        .exercises
        .iter()
        .filter(|e| e.checks.iter().any(|c| c.variant))
        .map(|e| {
            let seeds = (0..IDS)
                .map(|n| super::seed::seed(&key, &lesson.id, &e.name, &id(n)))
                .collect();
            (e.name.as_str(), seeds)
        })
        .collect();
    check_protocol::variant::sweep_value(seeds.iter().map(|(e, s)| (*e, s.as_slice())))
}

/// The executables of one lesson's reference solution: its hidden checks' (the variant checks
/// among them) and every check executable (the fixed checks the fitted plant records).
#[derive(Debug, Clone)]
pub struct Executables {
    /// The hidden checks' executable.
    pub hidden: PathBuf,
    /// Every check executable of the lesson.
    pub all: Vec<PathBuf>,
}

/// The problems of the proof over `lessons` (those with variant checks), `workers` sweeps at a
/// time: a reference that fails its variant for some id, a plant whose points on a variant
/// check depend on the id, code fitted to the fixed checks that passes a variant.
pub fn problems(
    lessons: &[&Lesson],
    exes: &HashMap<String, Executables>,
    workers: usize,
) -> Result<Vec<String>> {
    let lessons: Vec<&Lesson> = lessons
        .iter()
        .copied()
        .filter(|l| l.has_variants() && exes.contains_key(&l.id))
        .collect();
    let seen = crate::fsutil::scratch_dir("fitted")?;
    let mut out = record_fitted(&lessons, exes, seen.path(), workers)?;
    let mut jobs = Vec::new();
    for lesson in &lessons {
        jobs.push(Job {
            lesson,
            plant: None,
        });
        jobs.push(Job {
            lesson,
            plant: Some(check_protocol::FITTED_TO_VISIBLE),
        });
        for m in &lesson.misconceptions {
            jobs.push(Job {
                lesson,
                plant: Some(&m.id),
            });
        }
    }
    let replay = format!("replay:{}", seen.path().join("seen").display());
    let runs = run_jobs(&jobs, exes, &replay, workers)?;
    for lesson in &lessons {
        let of = |plant: Option<&str>| {
            jobs.iter()
                .position(|j| j.lesson.id == lesson.id && j.plant == plant)
                .map(|k| &runs[k])
        };
        let Some(reference) = of(None) else { continue };
        let broken = reference_problems(lesson, reference);
        if !broken.is_empty() {
            out.extend(broken);
            continue;
        }
        let plants = std::iter::once(check_protocol::FITTED_TO_VISIBLE)
            .chain(lesson.misconceptions.iter().map(|m| m.id.as_str()));
        for plant in plants {
            if let Some(planted) = of(Some(plant)) {
                out.extend(plant_problems(lesson, plant, reference, planted));
            }
        }
    }
    Ok(out)
}

/// Each variant check of `lesson` the reference does not pass for every id.
fn reference_problems(lesson: &Lesson, reference: &HashMap<String, Vec<SeedRun>>) -> Vec<String> {
    let mut out = Vec::new();
    for check in variant_checks(lesson) {
        let runs = reference.get(check).map_or(&[][..], Vec::as_slice);
        let failed: Vec<String> = (0..IDS)
            .filter(|&n| !runs.get(n).is_some_and(|r| r.returned))
            .map(id)
            .collect();
        if !failed.is_empty() {
            out.push(format!(
                "{}: the reference solution fails its variant check `{check}` for {} of {IDS} ids \
                 ({}): fix the check or the solution",
                lesson.id,
                failed.len(),
                named(&failed)
            ));
        }
    }
    out
}

/// What is unfair in `planted`, the sweep of `lesson` with `plant`.
fn plant_problems(
    lesson: &Lesson,
    plant: &str,
    reference: &HashMap<String, Vec<SeedRun>>,
    planted: &HashMap<String, Vec<SeedRun>>,
) -> Vec<String> {
    let mut out = Vec::new();
    let exercise_of = |check: &str| {
        lesson
            .exercises
            .iter()
            .find(|e| e.checks.iter().any(|c| c.name == check))
            .map_or("?", |e| e.name.as_str())
    };
    for check in variant_checks(lesson) {
        let expected = &reference[check];
        let runs = planted.get(check).map_or(&[][..], Vec::as_slice);
        let passes: Vec<bool> = (0..IDS)
            .map(|n| runs.get(n).is_some_and(|r| r.passes(&expected[n], check)))
            .collect();
        let shown = |ids: &[usize]| -> Vec<String> {
            ids.iter()
                .map(|&n| format!("{} ({})", id(n), expected[n].shapes()))
                .collect()
        };
        if plant == check_protocol::FITTED_TO_VISIBLE {
            let passed: Vec<usize> = (0..IDS).filter(|&n| passes[n]).collect();
            if !passed.is_empty() {
                out.push(format!(
                    "{}: code fitted to the fixed checks passes the variant check `{check}` of \
                     `{}` for {} of {IDS} ids: {}\n  help: draw values no fixed check uses, not \
                     only shapes",
                    lesson.id,
                    exercise_of(check),
                    passed.len(),
                    named(&shown(&passed))
                ));
            }
        } else if let Some(passed) = unfair(&passes) {
            let own = lesson
                .misconceptions
                .iter()
                .find(|m| m.id == plant)
                .map_or("?", |m| m.exercise.as_str());
            out.push(format!(
                "{}: misconception `{plant}` (exercise `{own}`) passes the variant check `{check}` \
                 of `{}` for {} of {IDS} ids, so its points depend on the student: {}\n  help: \
                 draw inputs where the mistake cannot pass (no axis of size 1 where it coincides \
                 with the reference); degenerate shapes belong in the property checks",
                lesson.id,
                exercise_of(check),
                passed.len(),
                named(&shown(&passed))
            ));
        }
    }
    out
}

/// The first few of `items`, and how many more.
fn named(items: &[String]) -> String {
    let mut text = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        text.push_str(&format!(" and {} more", items.len() - NAMED));
    }
    text
}

/// Runs the fitted plant's recording of every fixed check of `lessons` into `dir/seen`: the
/// inputs fitted code knows. Returns the problems (a recording that failed).
fn record_fitted(
    lessons: &[&Lesson],
    exes: &HashMap<String, Executables>,
    dir: &Path,
    workers: usize,
) -> Result<Vec<String>> {
    let setting = Setting {
        plant: Some(check_protocol::FITTED_TO_VISIBLE.to_owned()),
        fitted: Some(format!("record:{}", dir.join("seen").display())),
        ..Setting::default()
    };
    let lister = Runner::direct_with(setting.clone())?;
    // Per executable: its lesson and the process recording its fixed checks.
    let mut of_lesson: Vec<&str> = Vec::new();
    let mut jobs: Vec<Process> = Vec::new();
    let module = format!("{MODULE}::");
    for lesson in lessons {
        for exe in &exes[&lesson.id].all {
            let fixed = Listed::of(&lister, exe)?.only(|t| !t.full().starts_with(&module));
            of_lesson.push(&lesson.id);
            jobs.push(Process {
                exe: fixed.exe,
                tests: fixed.checks.iter().map(|c| c.full().to_owned()).collect(),
                setting: setting.clone(),
            });
        }
    }
    let outs = crate::run::reference::run(&jobs, LIMIT, workers)?;
    let mut problems: Vec<String> = of_lesson
        .iter()
        .zip(&outs)
        .filter(|(_, out)| out.ended != crate::run::sandbox::Ended::Exited(0))
        .map(|(lesson, out)| {
            format!(
                "{lesson}: recording the fixed checks for the fitted plant failed:\n{}",
                crate::build::trim_error(&out.output, 12)
            )
        })
        .collect();
    // Without a recording, fitted code would fail every variant and prove nothing.
    let recorded = std::fs::metadata(dir.join("seen")).is_ok_and(|m| m.len() > 0);
    if problems.is_empty() && !jobs.is_empty() && !recorded {
        problems.push(
            "the fitted plant recorded no fixed check's inputs: are the exercises `plantable!`?"
                .to_owned(),
        );
    }
    Ok(problems)
}

/// Each job's sweep (in the order of `jobs`), `workers` at a time.
fn run_jobs(
    jobs: &[Job],
    exes: &HashMap<String, Executables>,
    replay: &str,
    workers: usize,
) -> Result<Vec<HashMap<String, Vec<SeedRun>>>> {
    let passes: Vec<Process> = jobs
        .iter()
        .map(|job| Process {
            exe: exes[&job.lesson.id].hidden.clone(),
            tests: variant_checks(job.lesson)
                .iter()
                .map(|c| format!("{MODULE}::{c}"))
                .collect(),
            setting: Setting {
                plant: job.plant.map(str::to_owned),
                sweep: Some(sweep_value(job.lesson)),
                fitted: Some(replay.to_owned()),
                ..Setting::default()
            },
        })
        .collect();
    let runs = crate::run::reference::run(&passes, LIMIT, workers)?;
    Ok(jobs
        .iter()
        .zip(&runs)
        .map(|(job, run)| split(&run.observations, &variant_checks(job.lesson)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(name: &str, text: &str) -> Observation {
        Observation::Snapshot {
            name: name.into(),
            text: text.into(),
            exact: true,
        }
    }

    fn returned(passed: bool) -> Observation {
        Observation::Assert {
            label: SWEEP_RETURNED.into(),
            passed,
            message: String::new(),
        }
    }

    /// A sweep of one check over seeds whose outputs are `outputs` (`None`: the body panicked).
    fn sweep(outputs: &[Option<&str>]) -> Vec<Observation> {
        let mut obs = vec![Observation::Begin];
        for (n, output) in outputs.iter().enumerate() {
            obs.push(snap(&format!("x{SWEEP_SEED_SUFFIX}"), &format!("{n}\n")));
            obs.push(snap(&format!("x{SHAPES_SUFFIX}"), &format!("T={n}\n")));
            if let Some(text) = output {
                obs.push(snap("out", text));
            }
            obs.push(returned(output.is_some()));
        }
        obs.push(Observation::End);
        obs
    }

    #[test]
    fn a_sweep_splits_per_seed_and_each_seed_is_judged_against_the_references() {
        let reference = split(
            &sweep(&[Some("1\n"), Some("2\n"), Some("3\n")]),
            &["x_variant"],
        );
        let planted = split(&sweep(&[Some("1\n"), Some("9\n"), None]), &["x_variant"]);
        let (want, got) = (&reference["x_variant"], &planted["x_variant"]);
        assert_eq!(got.len(), 3);
        assert_eq!(want[1].shapes(), "T=1");
        let passes: Vec<bool> = (0..3).map(|n| got[n].passes(&want[n], "x")).collect();
        assert_eq!(
            passes,
            [true, false, false],
            "a wrong value and a panic fail"
        );
        assert!(want.iter().zip(want).all(|(a, b)| a.passes(b, "x")));
    }

    #[test]
    fn a_plant_is_unfair_when_its_outcome_depends_on_the_id() {
        assert_eq!(unfair(&[false, true, false, true]), Some(vec![1, 3]));
        assert_eq!(unfair(&[false, false]), None, "fails for everyone");
        assert_eq!(unfair(&[true, true]), None, "passes for everyone");
    }

    #[test]
    fn a_plant_that_passes_for_some_ids_is_named_with_them() {
        let mut lesson = crate::course::fixture().lessons.remove(0);
        lesson.exercises[0].checks[0].variant = true;
        let check = variant_checks(&lesson)[0].to_owned();
        let outputs: Vec<Option<&str>> = (0..IDS).map(|_| Some("1\n")).collect();
        let mut wrong = outputs.clone();
        wrong[5] = Some("2\n");
        let reference = split(&sweep(&outputs), &[&check]);
        let planted = split(&sweep(&wrong), &[&check]);
        let problems = plant_problems(&lesson, "split-a", &reference, &planted);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("`split-a`")
                && problems[0].contains(&format!("for {} of {IDS} ids", IDS - 1))
                && problems[0].contains("id-0 (T=0)"),
            "{problems:?}"
        );
        assert!(plant_problems(&lesson, "split-a", &reference, &reference).is_empty());
        let fitted = plant_problems(
            &lesson,
            check_protocol::FITTED_TO_VISIBLE,
            &reference,
            &planted,
        );
        assert!(fitted[0].contains("code fitted"), "{fitted:?}");
    }
}
