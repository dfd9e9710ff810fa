//! Which misconceptions a lesson's failures show, and whom each failure is blamed on, decided
//! from values: each graded check's status and what its run said of the misconceptions recorded
//! for it. The grade's report (`report::blame`) and planting (`bless`, `check`: see
//! [`crate::judge::planting`]) decide through here alike.
//!
//! A misconception is shown when a check that decides about it repeats one of its records and no
//! such check contradicts one. The checks that decide are those of its own exercise that no
//! other failing exercise blocks (course.toml `needs`), and those of exercises that pass. A check
//! that stopped at a `todo!()`, or of an exercise not started, blocked or failing for another
//! reason, neither vetoes nor confirms: a mistake is named where it is made, whatever else of
//! the lesson is unfinished.

use crate::course::{Check, Lesson, Misconception};
use crate::judge::misconception::choose;
use crate::judge::verdict::Status;
use std::collections::{BTreeSet, HashMap, HashSet};

/// What one check's run said of the misconceptions recorded for that check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    /// Those whose records the run repeats: the ones its failure may name.
    pub matched: Vec<String>,
    /// Those with a record for the check that the run does not repeat (it passed, or failed in
    /// another way).
    pub contradicted: Vec<String>,
}

/// One graded check of a lesson.
#[derive(Debug, Clone, Copy)]
pub struct Graded<'a> {
    /// Its verdict.
    pub status: Status,
    /// What its run said of the recorded misconceptions (`None`: it did not run, or none has a
    /// record for it).
    pub seen: Option<&'a Seen>,
}

/// Whom a failing check is blamed on, and the misconception its failure names.
#[derive(Debug, Clone, Default)]
pub struct Blamed<'l> {
    /// The exercise to fix first, when not the check's own.
    pub blocked_by: Option<String>,
    /// The misconception named.
    pub diagnosis: Option<&'l Misconception>,
}

/// Whether each exercise of `lesson` with a graded check passes (every graded check passed).
/// An exercise without one is not in the map: not graded, it blocks nothing.
pub fn passing<'l>(lesson: &'l Lesson, graded: &HashMap<&str, Graded>) -> HashMap<&'l str, bool> {
    lesson
        .exercises
        .iter()
        .filter_map(|e| {
            let statuses: Vec<Status> = (e.checks.iter())
                .filter_map(|c| graded.get(c.name.as_str()).map(|g| g.status))
                .collect();
            (!statuses.is_empty()).then(|| {
                (
                    e.name.as_str(),
                    statuses.iter().all(|s| *s == Status::Passed),
                )
            })
        })
        .collect()
}

/// The misconceptions of `lesson` its graded checks show (see the module's header); `passing`:
/// whether an exercise (of this lesson or an earlier one) passes, `None` when not graded.
pub fn shown<'l>(
    lesson: &'l Lesson,
    graded: &HashMap<&str, Graded>,
    passing: &dyn Fn(&str) -> Option<bool>,
) -> BTreeSet<&'l str> {
    let mut confirmed = BTreeSet::new();
    let mut vetoed = BTreeSet::new();
    for ex in &lesson.exercises {
        for check in &ex.checks {
            let Some(Graded {
                status,
                seen: Some(seen),
            }) = graded.get(check.name.as_str())
            else {
                continue;
            };
            if *status == Status::NotStarted {
                continue;
            }
            let decides = |m: &Misconception| {
                passing(&ex.name) == Some(true)
                    || (m.exercise == ex.name && !blocked(check, &m.exercise, passing))
            };
            for m in lesson.misconceptions.iter().filter(|m| decides(m)) {
                if seen.matched.contains(&m.id) {
                    confirmed.insert(m.id.as_str());
                }
                if seen.contradicted.contains(&m.id) {
                    vetoed.insert(m.id.as_str());
                }
            }
        }
    }
    confirmed.difference(&vetoed).copied().collect()
}

/// True when `check` needs an exercise other than `own` that fails.
fn blocked(check: &Check, own: &str, passing: &dyn Fn(&str) -> Option<bool>) -> bool {
    check
        .needs
        .iter()
        .any(|n| n != own && passing(n) == Some(false))
}

/// Whom each failing graded check of `lesson` is blamed on and what it names, by check name.
///
/// A failing check whose prerequisite (`needs`) is not passing is blocked by it, followed back
/// within the lesson to the first exercise that fails on its own (an exercise all of whose
/// failures are blocked hands the blame on), unless its failure matches only misconceptions of its own exercise:
/// then its own failure explains it, whatever the prerequisite fails. Its diagnosis is one of
/// the shown misconceptions its run repeats, chosen by [`choose`].
pub fn blame<'l>(
    lesson: &'l Lesson,
    graded: &HashMap<&str, Graded>,
    passing: &dyn Fn(&str) -> Option<bool>,
) -> HashMap<String, Blamed<'l>> {
    let shown = shown(lesson, graded, passing);
    let exercise_of = |id: &str| {
        (lesson.misconceptions.iter())
            .find(|m| m.id == id)
            .map(|m| m.exercise.as_str())
    };
    let failing = (lesson.exercises.iter())
        .flat_map(|e| e.checks.iter().map(move |c| (e, c)))
        .filter_map(|(e, c)| match graded.get(c.name.as_str()) {
            Some(g) if g.status != Status::Passed => Some((e, c, *g)),
            _ => None,
        });
    let mut found = Vec::new();
    // The first prerequisite of each failing check that is not passing.
    let mut direct: HashMap<&str, &str> = HashMap::new();
    for (ex, check, g) in failing {
        let candidates: Vec<String> = (g.seen.iter())
            .flat_map(|s| &s.matched)
            .filter(|id| shown.contains(id.as_str()))
            .cloned()
            .collect();
        let own = !candidates.is_empty()
            && (candidates.iter()).all(|id| exercise_of(id) == Some(ex.name.as_str()));
        if let Some(first) = check.needs.iter().find(|n| passing(n) == Some(false))
            && !own
        {
            direct.insert(&check.name, first);
        }
        found.push((ex, check, candidates));
    }
    // An exercise all of whose failures are blocked hands the blame on to its own blocker.
    let mut handed_on: HashMap<&str, &str> = HashMap::new();
    for ex in &lesson.exercises {
        let mut blockers = (found.iter())
            .filter(|(e, _, _)| e.name == ex.name)
            .map(|(_, c, _)| direct.get(c.name.as_str()));
        if let Some(Some(first)) = blockers.next()
            && blockers.all(|b| b.is_some())
        {
            handed_on.insert(&ex.name, first);
        }
    }
    let root_of = |start: &str| -> String {
        let (mut at, mut seen) = (start, HashSet::new());
        while let Some(next) = handed_on.get(at) {
            if !seen.insert(at) {
                break;
            }
            at = next;
        }
        at.to_owned()
    };
    found
        .into_iter()
        .map(|(ex, check, candidates)| {
            let blocked_by = (direct.get(check.name.as_str()))
                .map(|b| root_of(b))
                .filter(|b| *b != ex.name);
            let diagnosis = choose(lesson, &candidates, &ex.name, blocked_by.as_deref());
            (
                check.name.clone(),
                Blamed {
                    blocked_by,
                    diagnosis,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exercise `a` and `b`; `a-wrong`, a mistake in `a`, is caught by `a1`, `a2` (which needs
    /// `c`) and `b1`.
    fn lesson() -> Lesson {
        let course: crate::course::Course = toml::from_str(
            r#"
            [course]
            title = "t"
            [[lessons]]
            id = "lesson01"
            dir = "d"
            title = "t"
            [[lessons.exercises]]
            name = "c"
            checks = [{ name = "c1", points = 1 }]
            [[lessons.exercises]]
            name = "a"
            checks = [{ name = "a1", points = 1 }, { name = "a2", points = 1, needs = ["c"] }]
            [[lessons.exercises]]
            name = "b"
            checks = [{ name = "b1", points = 1 }, { name = "b2", points = 1 }]
            [[lessons.misconceptions]]
            id = "a-wrong"
            exercise = "a"
            title = "t"
            explanation = "e"
            checks = ["a1", "a2", "b1"]
            "#,
        )
        .expect("the lesson parses");
        course.lessons.into_iter().next().expect("one lesson")
    }

    fn matched() -> Seen {
        Seen {
            matched: vec!["a-wrong".into()],
            ..Seen::default()
        }
    }

    fn contradicted() -> Seen {
        Seen {
            contradicted: vec!["a-wrong".into()],
            ..Seen::default()
        }
    }

    /// The misconceptions shown when the checks are graded `(name, status, seen)`.
    fn shown_by(checks: &[(&str, Status, Option<Seen>)]) -> Vec<String> {
        let lesson = lesson();
        let graded: HashMap<&str, Graded> = (checks.iter())
            .map(|(c, status, seen)| {
                let (status, seen) = (*status, seen.as_ref());
                (*c, Graded { status, seen })
            })
            .collect();
        let passing = passing(&lesson, &graded);
        let shown = shown(&lesson, &graded, &|e| passing.get(e).copied());
        shown.into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn a_misconception_is_decided_by_its_own_exercise_and_passing_ones() {
        use Status::{NotStarted, Passed, Wrong};
        let named = ["a-wrong".to_owned()];
        let a = |a2: Status, a2_seen: Option<Seen>| {
            [
                ("c1", Passed, None),
                ("a1", Wrong, Some(matched())),
                ("a2", a2, a2_seen),
            ]
        };
        let with = |a: [(&'static str, Status, Option<Seen>); 3], b: Vec<_>| {
            shown_by(&a.into_iter().chain(b).collect::<Vec<_>>())
        };
        // `b` not started, or failing for another reason: its checks neither veto nor confirm.
        let b_todo = vec![
            ("b1", NotStarted, Some(contradicted())),
            ("b2", NotStarted, None),
        ];
        assert_eq!(with(a(Wrong, Some(matched())), b_todo.clone()), named);
        let b_other = vec![("b1", Wrong, Some(contradicted())), ("b2", Wrong, None)];
        assert_eq!(with(a(Wrong, Some(matched())), b_other), named);
        // `b` passes: its check that the mistake fails passed, so the mistake is not there.
        let b_passes = vec![("b1", Passed, Some(contradicted())), ("b2", Passed, None)];
        assert!(with(a(Wrong, Some(matched())), b_passes).is_empty());
        // Its own exercise's check failing another way vetoes it...
        assert!(with(a(Wrong, Some(contradicted())), b_todo.clone()).is_empty());
        // ...unless that check is blocked by a failing exercise it needs, or stopped at a todo.
        let mut blocked = a(Wrong, Some(contradicted()));
        blocked[0].1 = Wrong;
        assert_eq!(with(blocked, b_todo.clone()), named);
        assert_eq!(with(a(NotStarted, Some(contradicted())), b_todo), named);
        // Only another failing exercise's check repeats it: not confirmed.
        let only_b = [
            ("a1", Wrong, None),
            ("b1", Wrong, Some(matched())),
            ("b2", Wrong, None),
        ];
        assert!(shown_by(&only_b).is_empty());
    }
}
