//! The values the grade's stages hand each other: [`Plan`] → [`Built`] → [`Listing`] →
//! [`Runs`](crate::run::runs::Runs) → [`Verdicts`] → [`Report`](crate::report::Report). Each stage is
//! a function of the one before ([`super::Pipeline`]).

use super::recompile::Recompiled;
use crate::build::BuildOutput;
use crate::build::reuse::Stamp;
use crate::course::CheckId;
use crate::plan::LessonPlan;
use crate::report::LessonReport;
use crate::run::Runner;
use crate::variants::Variants;
use crate::variants::reference::Observed;
use anyhow::Result;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::thread::JoinHandle;

pub(super) use super::list::Listing;

/// The reference run of the variant checks, per lesson id.
pub(super) type References = BTreeMap<String, Observed>;

/// Stage 1, **plan**: a plan per lesson, the variant inputs, and the variant checks' reference
/// run, started beside the build (it runs no student code) and waited for by [`Plan::complete`].
pub(super) struct Plan<'c> {
    /// One per lesson graded, in course order.
    pub lessons: Vec<LessonPlan<'c>>,
    /// The variant inputs, when variant checks run.
    pub variants: Option<Variants>,
    /// The reference run under way.
    references: Option<JoinHandle<Result<References>>>,
}

impl<'c> Plan<'c> {
    /// The plans, with the reference run started in the background when `variants` is some.
    pub fn new(
        lessons: Vec<LessonPlan<'c>>,
        variants: Option<Variants>,
        references: Option<JoinHandle<Result<References>>>,
    ) -> Self {
        Self {
            lessons,
            variants,
            references,
        }
    }

    /// The plans completed by the reference run: each variant check's expected observations are
    /// the reference's. Waits for the run; nothing is judged before.
    pub fn complete(self) -> Result<Planned<'c>> {
        let references = self
            .references
            .map(|r| r.join().expect("the reference run does not panic"))
            .transpose()?
            .unwrap_or_default();
        let mut lessons = self.lessons;
        for plan in &mut lessons {
            if let Some(observed) = references.get(&plan.lesson.id) {
                plan.expected.extend(observed.expected.clone());
            }
        }
        Ok(Planned {
            lessons,
            variants: self.variants,
            references,
        })
    }
}

/// A [`Plan`] with every expected observation known.
pub(super) struct Planned<'c> {
    /// One per lesson graded, in course order.
    pub lessons: Vec<LessonPlan<'c>>,
    /// The variant inputs, when variant checks run.
    pub variants: Option<Variants>,
    /// What the reference run observed, per lesson id.
    pub references: References,
}

/// Stage 2, **build**: the lessons' build (those that did not compile built again with the
/// broken exercises stubbed out), the runner their checks run with, and what the last build's
/// record still knows of its executables' tests.
pub(super) struct Built {
    /// The build, stubbed lessons included.
    pub output: BuildOutput,
    /// The lessons built again with exercises stubbed out.
    pub recompiled: Recompiled,
    /// Runs the checks (planted misconception and variant seeds set).
    pub runner: Runner,
    /// Per executable, its tests when known without listing it again.
    pub listed: HashMap<PathBuf, Vec<CheckId>>,
    /// Where a local build's record is kept, when a new one is to be kept after listing, with
    /// the build as it was before stubbing (a lesson that did not compile is never fresh).
    pub keep: Option<(Stamp, Option<BuildOutput>)>,
}

/// Stage 5, **judge**: each lesson's report with a verdict per check, failures blamed on the
/// exercise that causes them and matched with the misconceptions their lesson shows.
pub(super) struct Verdicts {
    /// One per lesson graded, in course order.
    pub lessons: Vec<LessonReport>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::expected::{Expect, Expected};
    use std::time::Duration;

    #[test]
    fn the_reference_run_completes_the_plans_before_anything_is_judged() {
        let course = crate::course::fixture();
        let lesson = &course.lessons[0];
        let plan = |expected: Expected| LessonPlan {
            lesson,
            student_src: String::new(),
            timeout: Duration::from_secs(1),
            expected,
            misconceptions: Vec::new(),
        };
        let mut own = Expected::default();
        own.checks
            .insert("fixed".into(), vec![Expect::Assert("a".into())]);
        let mut reference = Observed::default();
        let drawn = vec![Expect::Assert("b".into())];
        reference.expected.checks.insert("drawn".into(), drawn);
        let id = lesson.id.clone();
        let run = std::thread::spawn(move || Ok([(id, reference)].into()));
        let planned = Plan::new(vec![plan(own)], None, Some(run))
            .complete()
            .unwrap();
        let checks = &planned.lessons[0].expected.checks;
        assert_eq!(checks.len(), 2, "{checks:?}");
        assert_eq!(checks["drawn"], [Expect::Assert("b".into())]);
        assert_eq!(planned.references.len(), 1);
        // Without variants nothing is waited for.
        let planned = Plan::new(vec![plan(Expected::default())], None, None)
            .complete()
            .unwrap();
        assert!(planned.references.is_empty());
        // A reference run that fails stops the grade before any check is judged.
        let failing = std::thread::spawn(|| Err(anyhow::anyhow!("the reference fails")));
        let err = Plan::new(Vec::new(), None, Some(failing)).complete();
        assert!(err.is_err_and(|e| e.to_string().contains("the reference fails")));
    }
}
