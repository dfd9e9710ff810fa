//! Variant checks: official-only checks whose inputs are drawn per student, so that no one can
//! memorise or fit to them.
//!
//! * [`secret`]: the course secret (`course-secret`), which only the instructors and the grader
//!   hold.
//! * [`seed`]: a student's seed for one exercise, HMAC-SHA256(secret, lesson ‖ exercise ‖ id).
//! * [`reference`]: the trusted run of the same checks against the reference solution with the
//!   same seeds, whose observations are the expected ones.
//! * [`planted`]: misconceptions planted into that run, to name the one a failure matches.
//! * `fairness` (instructors' build): `cargo xtask check`'s proof that each plant keeps the same
//!   points on the variant checks whatever the student's id.
//!
//! The seeds reach the check processes at run time only (`check_protocol::VARIANT_ENV`), never
//! the build, so no code can be compiled against them. Grading without variants (a student's
//! local grade: no secret, no solutions) leaves the variant checks out, as a handout does; local
//! grading of the solutions draws them from [`LOCAL_KEY`], never the secret.

#[cfg(feature = "instructor")]
pub mod fairness;
pub mod planted;
pub mod reference;
pub mod secret;
pub mod seed;

use crate::course::Lesson;
use crate::report::VariantInputs;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// The id whose variants local grading with variants (`grade --solutions`, `check`) draws.
pub const LOCAL_ID: &str = "local";

/// The key local grading draws the variants of [`LOCAL_ID`] with, in place of the course secret:
/// they are no student's, so a clone without the secret grades the solutions the same way.
pub const LOCAL_KEY: [u8; 32] = [0; 32];

/// One student's seeds for the variant checks of the graded lessons.
#[derive(Debug, Clone)]
pub struct Variants {
    /// Per exercise (course-wide unique names): its seed.
    seeds: BTreeMap<String, u64>,
}

impl Variants {
    /// The seeds of `student` for every exercise of `lessons` that has a variant check, from the
    /// secret of the course at `root`.
    pub fn new(root: &Path, lessons: &[&Lesson], student: &str) -> Result<Self> {
        let secret = secret::load(root)?;
        Ok(Self::with_secret(&secret, lessons, student))
    }

    /// The seeds of [`LOCAL_ID`] under [`LOCAL_KEY`]: local grading's, never a student's.
    pub fn local(lessons: &[&Lesson]) -> Self {
        Self::with_secret(&LOCAL_KEY, lessons, LOCAL_ID)
    }

    /// As [`Variants::new`], with the secret given.
    pub fn with_secret(secret: &[u8; 32], lessons: &[&Lesson], student: &str) -> Self {
        let seeds = lessons
            .iter()
            .flat_map(|l| l.exercises.iter().map(move |e| (l, e)))
            .filter(|(_, e)| e.checks.iter().any(|c| c.variant))
            .map(|(l, e)| (e.name.clone(), seed::seed(secret, &l.id, &e.name, student)))
            .collect();
        Self { seeds }
    }

    /// The value of `check_protocol::VARIANT_ENV` for the check processes.
    pub fn env_value(&self) -> String {
        check_protocol::variant::seeds_value(self.seeds.iter().map(|(e, s)| (e.as_str(), *s)))
    }

    /// What the report says of the variant check of `exercise` (`shapes` from the reference run).
    pub fn inputs(&self, exercise: &str, shapes: Option<&String>) -> Option<VariantInputs> {
        Some(VariantInputs {
            seed: self.seeds.get(exercise)?.to_string(),
            shapes: shapes.cloned().unwrap_or_default(),
        })
    }
}

/// `lesson` without its variant checks: what grading without variants grades.
pub fn without_variants(lesson: &Lesson) -> Lesson {
    let mut lesson = lesson.clone();
    for ex in &mut lesson.exercises {
        ex.checks.retain(|c| !c.variant);
    }
    lesson
}

/// The reference run of every lesson in `lessons` that has variant checks (see [`reference`]):
/// per lesson id, what its variant checks must observe.
pub fn reference_runs(
    root: &Path,
    lessons: &[&Lesson],
    variants: &Variants,
) -> Result<BTreeMap<String, reference::Observed>> {
    let with: Vec<&Lesson> = lessons
        .iter()
        .copied()
        .filter(|l| l.has_variants())
        .collect();
    if with.is_empty() {
        return Ok(BTreeMap::new());
    }
    let exes = reference::executables(root, &with)?;
    let seeds = variants.env_value();
    let mut out = BTreeMap::new();
    for lesson in with {
        let checks: Vec<&str> = lesson
            .exercises
            .iter()
            .flat_map(|e| &e.checks)
            .filter(|c| c.variant)
            .map(|c| c.name.as_str())
            .collect();
        let observed = reference::run(&exes[&lesson.id], &checks, &seeds)?;
        out.insert(lesson.id.clone(), observed);
    }
    Ok(out)
}

/// [`reference_runs`] in a thread of its own, which the caller joins for the result.
pub fn reference_runs_in_background(
    root: &Path,
    lessons: &[&Lesson],
    variants: Variants,
) -> std::thread::JoinHandle<Result<BTreeMap<String, reference::Observed>>> {
    let root = root.to_path_buf();
    let lessons: Vec<Lesson> = lessons.iter().map(|l| (*l).clone()).collect();
    std::thread::spawn(move || {
        let lessons: Vec<&Lesson> = lessons.iter().collect();
        reference_runs(&root, &lessons, &variants)
    })
}
