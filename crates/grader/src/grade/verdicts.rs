//! Stage 5, **judge**: each check's verdict, gathered into lesson reports, failures blamed.

use super::list::Slot;
use super::recompile::Stubbed;
use super::stages::Verdicts;
use crate::build::Built;
use crate::course::{Check, Course, Exercise};
use crate::judge::diagnosis::Seen;
use crate::judge::verdict::{Status, Verdict};
use crate::judge::{Context, judge};
use crate::plan::LessonPlan;
use crate::report::blame::Evidence;
use crate::report::{Build, CheckReport, ExerciseReport, LessonReport};
use crate::run::RunOutput;
use crate::variants::Variants;
use crate::variants::reference::Observed;
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// What the checks' runs are judged with.
pub(super) struct Judging<'a> {
    /// Each check's run, by job.
    pub outputs: &'a [RunOutput],
    /// What each lesson built.
    pub built: &'a HashMap<String, Built>,
    /// The lessons built again with exercises stubbed out.
    pub stubbed: &'a HashMap<String, Stubbed>,
    /// The variant inputs, when variant checks ran.
    pub variants: Option<&'a Variants>,
    /// Per lesson id: what the reference run of its variant checks observed.
    pub references: &'a BTreeMap<String, Observed>,
}

impl Judging<'_> {
    /// The verdicts on the lessons of `plans` from their `slots`: each check judged, then its
    /// failure blamed ([`crate::report::blame`]) from what each check's run said of the
    /// misconceptions recorded for it.
    pub(super) fn lessons(
        &self,
        course: &Course,
        plans: &[LessonPlan],
        slots: &[Vec<Vec<Slot>>],
    ) -> Verdicts {
        let mut reports = Vec::new();
        let mut evidence = Evidence::new();
        for (plan, per_exercise) in plans.iter().zip(slots) {
            let lesson = plan.lesson;
            let mut exercises = Vec::new();
            for (ex, per_check) in lesson.exercises.iter().zip(per_exercise) {
                let mut checks = Vec::new();
                for (check, slot) in ex.checks.iter().zip(per_check) {
                    let (verdict, duration, contradicted) = match slot {
                        Slot::Decided(v) => (v.clone(), Duration::ZERO, Vec::new()),
                        Slot::Job(i) => {
                            let run = &self.outputs[*i];
                            let contradicted = crate::judge::misconception::contradicted(
                                &plan.misconceptions,
                                &check.name,
                                &run.observations,
                            );
                            (verdict(plan, ex, check, run), run.duration, contradicted)
                        }
                    };
                    let report = self.check_report(plan, ex, check, &verdict, duration);
                    checks.push(report);
                    if !verdict.misconceptions.is_empty() || !contradicted.is_empty() {
                        let seen = Seen {
                            matched: verdict.misconceptions,
                            contradicted,
                        };
                        evidence.insert((lesson.id.clone(), check.name.clone()), seen);
                    }
                }
                exercises.push(ExerciseReport {
                    name: ex.name.clone(),
                    score: checks.iter().map(|c| c.points).sum(),
                    max_score: ex.checks.iter().map(|c| c.points).sum(),
                    checks,
                });
            }
            let stubbed = self.stubbed.get(&lesson.id);
            let (build, compiler_output) = match (&self.built[&lesson.id], stubbed) {
                (_, Some(stubbed)) => (Build::Stubbed, Some(stubbed.first_error.clone())),
                (Built::Ok(_), None) => (Build::Ok, None),
                (Built::Failed(err), None) => (Build::CompileError, Some(err.clone())),
            };
            let stubbed = stubbed.map_or_else(Vec::new, |s| {
                s.broken.iter().map(|b| b.name.clone()).collect()
            });
            reports.push(LessonReport {
                id: lesson.id.clone(),
                title: lesson.title.clone(),
                build,
                compiler_output,
                stubbed,
                score: exercises.iter().map(|e| e.score).sum(),
                max_score: lesson.max_points(),
                exercises,
            });
        }
        crate::report::blame::blame(&mut reports, course, &evidence);
        Verdicts { lessons: reports }
    }

    /// The report line of `check` with `verdict`.
    fn check_report(
        &self,
        plan: &LessonPlan,
        ex: &Exercise,
        check: &Check,
        verdict: &Verdict,
        duration: Duration,
    ) -> CheckReport {
        let inputs = self.variants.filter(|_| check.variant).and_then(|v| {
            let shapes = self
                .references
                .get(&plan.lesson.id)
                .and_then(|o| o.shapes.get(&check.name));
            v.inputs(&ex.name, shapes)
        });
        CheckReport {
            name: check.name.clone(),
            points: if verdict.status == Status::Passed {
                check.points
            } else {
                0
            },
            status: verdict.status,
            max_points: check.points,
            message: verdict.message.clone(),
            duration_ms: duration.as_millis() as u64,
            hidden: check.hidden,
            blocked_by: None,
            diagnosis: None,
            variant: inputs,
        }
    }
}

/// The verdict on the `run` of `check`, with a timeout told apart from a wait for a needed
/// exercise that timed out.
fn verdict(plan: &LessonPlan, ex: &Exercise, check: &Check, run: &RunOutput) -> Verdict {
    let ctx = Context {
        expected: plan.expected.checks.get(&check.name).map(Vec::as_slice),
        snapshots: &plan.expected.snapshots,
        student_src: &plan.student_src,
        misconceptions: &plan.misconceptions,
        check: &check.name,
    };
    let mut v = judge(&ctx, run);
    if v.status == Status::TimedOut {
        v.message = if run.limit < plan.timeout {
            format!(
                "stopped after {} s: an exercise this check needs did not finish \
                 in time, so it was not waited out again",
                run.limit.as_secs_f64()
            )
        } else {
            format!(
                "stopped after {} s while checking `{}`: look for a loop that never ends",
                plan.timeout.as_secs_f64(),
                ex.name
            )
        };
    }
    v
}
