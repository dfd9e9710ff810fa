//! What a grading run is asked to do: the lessons, the limits, and whether it is a local grade or
//! an official one ([`Mode`]), so that an official grade cannot be given a plant and a local one
//! cannot be asked for a sandbox. A request is resolved where the command makes it: its selection
//! is the course's lessons and exercises ([`Selection`]), an official one's isolation is probed
//! then; nothing downstream parses or probes again.

use crate::build::reuse::BuildCache;
use crate::course::selection::Selection;
use crate::course::{Course, Lesson, Side};
use crate::run::Isolation;
pub use crate::run::isolation::Sandbox;
use anyhow::{Result, anyhow, bail};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A grading run: what is common to every mode, and the mode's own settings `M`.
#[derive(Debug, Clone)]
pub struct Request<M = Mode> {
    /// Every lesson, one lesson, or one exercise: the command line's key, resolved once
    /// ([`Selection::resolve`], or [`resolve_local`] with a plant).
    pub selection: Selection,
    /// Overrides every time limit.
    pub timeout: Option<Duration>,
    /// Parallel check processes.
    pub jobs: usize,
    /// Print progress to stderr.
    pub progress: bool,
    /// Local or official grading, and its settings.
    pub mode: M,
}

/// Local or official grading.
#[derive(Debug, Clone)]
pub enum Mode {
    /// The student's or the instructors' own grade, in their workspace.
    Local(Local),
    /// A submission graded in a copy of the instructors' workspace.
    Official(Official),
}

/// Local grading: checks run directly, builds skip cargo when nothing changed.
#[derive(Debug, Clone)]
pub struct Local {
    /// The exercises, or the reference solutions (which also run their variant checks, for
    /// [`crate::variants::LOCAL_ID`]'s inputs).
    pub side: Side,
    /// Run every check in a process of its own. Otherwise the checks of one executable run
    /// together and those it cannot tell apart run again alone (see [`crate::run::grouped`]).
    pub isolate: bool,
    /// With the solutions: plant this misconception (its id) into the reference solution, to see
    /// what a student with that mistake gets (instructors).
    pub plant: Option<String>,
}

/// Official grading of the exercises of a submission: sandboxed build, every check in a process
/// of its own, variant checks for the student's inputs.
#[derive(Debug, Clone)]
pub struct Official {
    /// Whose variant inputs the variant checks get (the student's id, else
    /// [`crate::variants::LOCAL_ID`]).
    pub student: String,
    /// Whether grading may go on on a machine without a sandbox.
    pub sandbox: Sandbox,
    /// The isolation this machine gives check processes, probed once where the request is made
    /// ([`crate::run::sandbox::probe`]).
    pub isolation: Isolation,
    /// The target directory the submission is built in.
    pub target_dir: PathBuf,
    /// How long the sandboxed build may take (default [`crate::build::SUBMISSION_BUILD_TIMEOUT`]).
    pub build_timeout: Option<Duration>,
    /// Lesson builds shared by the submissions of one class run (see [`crate::build::reuse`]).
    pub build_cache: Option<Arc<BuildCache>>,
}

impl<M> Request<M> {
    /// The same request with the mode `mode`.
    pub fn with_mode<N>(&self, mode: N) -> Request<N> {
        Request {
            selection: self.selection.clone(),
            timeout: self.timeout,
            jobs: self.jobs,
            progress: self.progress,
            mode,
        }
    }
}

impl Mode {
    /// The side graded: official grading always grades the exercises.
    pub fn side(&self) -> Side {
        match self {
            Mode::Local(local) => local.side,
            Mode::Official(_) => Side::Exercises,
        }
    }
}

/// Resolves a local grade's key once: the lesson or exercise it names ([`Selection::resolve`]);
/// when `local` plants a misconception, checked against the side and the key, and without a key
/// the misconception's lesson.
pub fn resolve_local(course: &Course, key: Option<&str>, local: &Local) -> Result<Selection> {
    let selection = Selection::resolve(course, key)?;
    let Some(id) = local.plant.as_deref() else {
        return Ok(selection);
    };
    // The built-in plant fits every plantable exercise: no lesson of its own.
    if id == check_protocol::FITTED_TO_VISIBLE && local.side.is_solutions() {
        return Ok(selection);
    }
    let lesson = planted_lesson(course, id, local.side, key, &selection)?;
    Ok(match selection {
        Selection::All => Selection::Lesson(lesson.clone()),
        chosen => chosen,
    })
}

/// The lesson of the misconception `id`, checked against the side and the lesson `key` selects.
fn planted_lesson<'c>(
    course: &'c Course,
    id: &str,
    side: Side,
    key: Option<&str>,
    selection: &Selection,
) -> Result<&'c Lesson> {
    if !side.is_solutions() {
        bail!("--plant plants a misconception into the reference solutions: add --solutions");
    }
    let lesson = course
        .lessons
        .iter()
        .find(|l| l.misconceptions.iter().any(|m| m.id == id))
        .ok_or_else(|| {
            let ids: Vec<&str> = course
                .lessons
                .iter()
                .flat_map(|l| &l.misconceptions)
                .map(|m| m.id.as_str())
                .collect();
            let close = crate::course::suggest::did_you_mean(id, ids.iter().copied());
            match close {
                Some(c) => anyhow!("no misconception `{id}` in course.toml\n  help: did you mean `{c}`?"),
                None => anyhow!("no misconception `{id}` in course.toml (they are listed under [[lessons.misconceptions]])"),
            }
        })?;
    if let (Some(key), Selection::Lesson(chosen)) = (key, selection)
        && chosen.id != lesson.id
    {
        bail!(
            "misconception `{id}` belongs to {}, not to `{key}`",
            lesson.id
        );
    }
    Ok(lesson)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course() -> Course {
        let mut course = crate::course::fixture();
        let mut other = course.lessons[0].clone();
        other.id = "lesson03".into();
        other.dir = "e".into();
        other.misconceptions.clear();
        course.lessons.push(other);
        course
    }

    fn planting(id: &str, side: Side) -> Local {
        Local {
            side,
            isolate: false,
            plant: Some(id.to_owned()),
        }
    }

    fn lesson_of(selection: &Selection) -> Option<&str> {
        selection.lesson().map(|l| l.id.as_str())
    }

    #[test]
    fn a_plant_selects_its_lesson_once_and_is_checked_against_the_key() {
        let c = course();
        let solutions = planting("split-a", Side::Solutions);
        let alone = resolve_local(&c, None, &solutions).unwrap();
        assert!(matches!(alone, Selection::Lesson(_)));
        assert_eq!(lesson_of(&alone), Some("lesson02"));
        let exercise = resolve_local(&c, Some("merge_heads"), &solutions).unwrap();
        assert!(matches!(exercise, Selection::Exercise(..)));
        let fitted = planting(check_protocol::FITTED_TO_VISIBLE, Side::Solutions);
        assert!(matches!(
            resolve_local(&c, None, &fitted).unwrap(),
            Selection::All
        ));
        let error = |key, local: &Local| resolve_local(&c, key, local).unwrap_err().to_string();
        assert_eq!(
            error(Some("3"), &solutions),
            "misconception `split-a` belongs to lesson02, not to `3`"
        );
        assert_eq!(
            error(None, &planting("split-a", Side::Exercises)),
            "--plant plants a misconception into the reference solutions: add --solutions"
        );
        assert_eq!(
            error(None, &planting("split-c", Side::Solutions)),
            "no misconception `split-c` in course.toml\n  help: did you mean `split-a`?"
        );
        // The key is resolved first: a mistyped one is named before the plant is looked at.
        assert!(error(Some("nine"), &planting("x", Side::Exercises)).contains("`nine`"));
    }
}
