//! Points follow what a check can tell: a function wrong in its core keeps at most half of its
//! exercise's points under local grading.
//!
//! `cargo xtask check` plants every misconception (see [`crate::judge::planting::plant_all`]); the
//! checks it passes are the points a student with that mistake keeps. When they are more than
//! half of the visible points of the misconception's exercise, the checks cannot tell the mistake
//! from a working function well enough, and `check` says so.

use crate::course::Lesson;
use crate::judge::planting::Outcome;

/// The points a misconception that fails `failed` keeps of the visible checks of `exercise`, and
/// that exercise's visible points: `(kept, total)`.
pub fn kept(lesson: &Lesson, exercise: &str, failed: &[&str]) -> (u32, u32) {
    let visible = lesson
        .exercises
        .iter()
        .filter(|e| e.name == exercise)
        .flat_map(|e| &e.checks)
        .filter(|c| !c.hidden);
    visible.fold((0, 0), |(kept, total), c| {
        let passed = !failed.contains(&c.name.as_str());
        (kept + if passed { c.points } else { 0 }, total + c.points)
    })
}

/// One problem per planted misconception of `lesson` (`outcomes`: what planting it showed) that
/// keeps more than half of its exercise's visible points.
pub fn problems(lesson: &Lesson, outcomes: &[Outcome]) -> Vec<String> {
    let mut problems = Vec::new();
    for m in &lesson.misconceptions {
        let Some(outcome) = outcomes.iter().find(|o| o.id == m.id) else {
            continue;
        };
        let failed: Vec<&str> = outcome.failed.iter().map(String::as_str).collect();
        let (kept, total) = kept(lesson, &m.exercise, &failed);
        if 2 * kept <= total {
            continue;
        }
        let passed: Vec<String> = lesson
            .exercises
            .iter()
            .filter(|e| e.name == m.exercise)
            .flat_map(|e| &e.checks)
            .filter(|c| !c.hidden && !failed.contains(&c.name.as_str()))
            .map(|c| format!("`{}` ({})", c.name, c.points))
            .collect();
        problems.push(format!(
            "misconception `{}` keeps {kept} of the {total} points of `{}` (more than half): it \
             passes {}\n    help: give the checks it fails more of the exercise's points, or add \
             a property check that it fails (course.toml, exercises/{}/tests/checks.rs)",
            m.id,
            m.exercise,
            passed.join(", "),
            lesson.dir
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn properties_a_misconception_may_keep_half_of_its_exercise_but_no_more() {
        let mut lesson = crate::course::fixture().lessons.remove(0);
        // `merge-a` fails `m1` of merge_heads' `m1` and `m2`.
        let planted = [Outcome {
            id: "merge-a".into(),
            failed: BTreeSet::from(["m1".to_owned()]),
            diagnosed: BTreeSet::new(),
        }];
        let mut points = |m1: u32, m2: u32, hidden: bool| {
            let checks = &mut lesson.exercises[1].checks;
            (checks[0].points, checks[1].points, checks[1].hidden) = (m1, m2, hidden);
            problems(&lesson, &planted)
        };
        assert!(points(1, 1, false).is_empty(), "half may be kept");
        assert!(points(3, 1, false).is_empty());
        let too_many = points(1, 2, false);
        assert_eq!(too_many.len(), 1, "{too_many:?}");
        assert!(
            too_many[0].starts_with(
                "misconception `merge-a` keeps 2 of the 3 points of `merge_heads` (more than \
                 half): it passes `m2` (2)"
            ),
            "{}",
            too_many[0]
        );
        // A hidden check's points do not count: local grading never runs it.
        assert!(points(1, 5, true).is_empty());
        assert_eq!(kept(&lesson, "merge_heads", &["m1"]), (0, 1));
        assert!(
            problems(&lesson, &[]).is_empty(),
            "not planted: nothing to say"
        );
    }
}
