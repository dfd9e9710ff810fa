//! Misconceptions named on failed variant checks: each suspect is planted into the trusted
//! reference run with the student's seeds (see [`crate::variants::planted`]).

use super::list::Slot;
use crate::judge::verdict::Status;
use crate::judge::{Context, judge};
use crate::plan::LessonPlan;
use crate::run::RunOutput;
use crate::variants::reference::Observed;
use anyhow::Result;
use std::collections::BTreeMap;

/// Adds to each plan's misconception records those of its failed variant checks.
pub(super) fn recognise(
    plans: &mut [LessonPlan],
    slots: &[Vec<Vec<Slot>>],
    outputs: &[RunOutput],
    references: &BTreeMap<String, Observed>,
    seeds: &str,
    workers: usize,
) -> Result<()> {
    let mut failed = Vec::new();
    for (p, (plan, per_exercise)) in plans.iter().zip(slots).enumerate() {
        let Some(observed) = references.get(&plan.lesson.id) else {
            continue;
        };
        let checks = plan.lesson.exercises.iter().zip(per_exercise);
        let checks: Vec<_> = (checks.flat_map(|(ex, s)| ex.checks.iter().zip(s)))
            .filter(|(check, slot)| match slot {
                Slot::Job(i) if check.variant => {
                    let ctx = Context {
                        expected: plan.expected.checks.get(&check.name).map(Vec::as_slice),
                        snapshots: &plan.expected.snapshots,
                        student_src: &plan.student_src,
                        misconceptions: &[],
                        check: &check.name,
                    };
                    judge(&ctx, &outputs[*i]).status != Status::Passed
                }
                _ => false,
            })
            .map(|(check, _)| check)
            .collect();
        if !checks.is_empty() {
            let (lesson, timeout) = (plan.lesson, plan.timeout);
            failed.push((
                p,
                timeout,
                crate::variants::planted::Failed {
                    lesson,
                    observed,
                    checks,
                },
            ));
        }
    }
    let Some(timeout) = failed.iter().map(|(_, t, _)| *t).max() else {
        return Ok(());
    };
    let (at, failed): (Vec<usize>, Vec<_>) = failed.into_iter().map(|(p, _, f)| (p, f)).unzip();
    let records = crate::variants::planted::records(&failed, seeds, timeout, workers)?;
    for (p, records) in at.into_iter().zip(records) {
        plans[p].misconceptions.extend(records);
    }
    Ok(())
}
