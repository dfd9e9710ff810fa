//! What a grading run is asked to do: the lessons, the limits, and whether it is a local grade or
//! an official one ([`Mode`]), so that an official grade cannot be given a plant and a local one
//! cannot be asked for a sandbox.

use crate::build::reuse::BuildCache;
use crate::course::Side;
use crate::run::Isolation;
pub use crate::run::isolation::Sandbox;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A grading run: what is common to every mode, and the mode's own settings `M`.
#[derive(Debug, Clone)]
pub struct Request<M = Mode> {
    /// Only this lesson (id, number or directory), or only this exercise (its name): the
    /// command line's key, resolved by [`crate::plan::Selection::resolve`].
    pub selection: Option<String>,
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
