//! A compile error costs its function, not its lesson: each lesson that did not compile only
//! because of errors inside some of its exercises (decided by [`crate::build::stub_out`]) is
//! built again, once, in a scratch copy of the graded course where those exercises are their
//! handed-out stubs. The lesson's other exercises are then graded as written, and the stubbed
//! ones are `compile_error` with the compiler's first error in them. Neither the student's tree
//! nor the course's is written: locally the copy builds into the course's target folder, as
//! another copy of the course would; officially it is a copy of the grading copy, built the way
//! the grading copy is.

use crate::build::stub_out::{Broken, broken_exercises, stub_out};
use crate::build::{BuildOutput, Built};
use crate::course::stubs::exercise_path;
use crate::course::{Course, Lesson};
use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;

/// A lesson graded with some of its exercises stubbed out.
#[derive(Debug, Clone)]
pub(super) struct Stubbed {
    /// The exercises put back to their stubs, each with the compiler's first error in it.
    pub broken: Vec<Broken>,
    /// The lesson's first error, as it was handed in.
    pub first_error: String,
}

impl Stubbed {
    /// What the checks of `exercise` say when it was stubbed out: why it earns nothing, why the
    /// others are still graded, and the compiler's first error in it.
    pub fn message(&self, exercise: &str) -> Option<String> {
        let broken = self.broken.iter().find(|b| b.name == exercise)?;
        Some(format!(
            "`{exercise}` does not compile, so it was graded as its handed-out stub (`todo!()`); \
             the lesson's other exercises compiled without it and were graded as written. Fix \
             this error to earn its points:\n{}",
            broken.error
        ))
    }
}

/// What building again gave.
#[derive(Default)]
pub(super) struct Recompiled {
    /// Per lesson id graded with exercises stubbed out.
    pub lessons: HashMap<String, Stubbed>,
    /// The copy and its build, kept while the checks run: a submission's executables are in the
    /// build's private folder, and a local build's are linked in a folder named by the copy.
    _kept: Option<(crate::fsutil::TempDir, BuildOutput)>,
}

/// Files of the graded course the copy leaves out: build output, and folders whose name starts
/// with a dot (git's, an editor's) but cargo's own configuration.
fn left_out(rel: &str, is_dir: bool) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let hidden = name.starts_with('.') && name != ".cargo";
    (is_dir && (name == "target" || hidden)) || crate::fsutil::is_scratch_file(rel)
}

/// Where the handed-out stubs are read.
pub(super) enum Stubs<'a> {
    /// Official grading: the instructors' tree at this root, whose exercise files are the stubs
    /// (a handout's are copies of them).
    Instructors(&'a Path),
    /// Local grading: the graded course, where `reset` finds them.
    Course,
}

/// The build of some lessons of a copy of the graded course at its root, as the graded course's
/// own build would make it.
pub(super) type BuildCopy<'b> = dyn Fn(&Path, &[&Lesson]) -> Result<BuildOutput> + 'b;

/// Builds again, with the exercises their errors are in stubbed out, every lesson of `lessons`
/// (of `course`, graded at `root`) that `output` says failed on errors inside its exercises only,
/// in one copy with `build`, and puts the check executables of those that compile so into
/// `output`.
pub(super) fn recompile(
    root: &Path,
    course: &Course,
    lessons: &[&Lesson],
    stubs: Stubs,
    output: &mut BuildOutput,
    build: &BuildCopy,
) -> Result<Recompiled> {
    let mut stubbed = HashMap::new();
    let mut texts: Vec<(&Lesson, String)> = Vec::new();
    for &lesson in lessons {
        let (Some(errors), Some(Built::Failed(first_error))) = (
            output.errors.get(&lesson.id),
            output.lessons.get(&lesson.id),
        ) else {
            continue;
        };
        // Every exercise of the lesson, when one alone is graded.
        let whole = course.find_lesson(&lesson.id).unwrap_or(lesson);
        let Ok(text) = std::fs::read_to_string(exercise_path(root, lesson)) else {
            continue;
        };
        let Some(broken) = broken_exercises(whole, errors, &text) else {
            continue;
        };
        let stub = match stubs {
            Stubs::Instructors(dir) => std::fs::read_to_string(exercise_path(dir, lesson)).ok(),
            Stubs::Course => crate::course::stubs::handed_out(root, lesson).ok(),
        };
        let Some(text) = stub.and_then(|stub| stub_out(&text, &stub, &broken)) else {
            continue;
        };
        texts.push((lesson, text));
        let first_error = first_error.clone();
        stubbed.insert(
            lesson.id.clone(),
            Stubbed {
                broken,
                first_error,
            },
        );
    }
    if texts.is_empty() {
        return Ok(Recompiled::default());
    }
    let copy = crate::fsutil::scratch_dir("stubbed")?;
    let files = crate::fsutil::files_under(root, root, &left_out);
    crate::fsutil::copy_files(root, copy.path(), &files)?;
    for (lesson, text) in &texts {
        crate::fsutil::write(&exercise_path(copy.path(), lesson), text)?;
    }
    let building: Vec<&Lesson> = texts.iter().map(|(lesson, _)| *lesson).collect();
    let built = build(copy.path(), &building)?;
    // A lesson whose stubbed copy does not compile either stays a compile error.
    stubbed.retain(|id, _| match built.lessons.get(id) {
        Some(Built::Ok(bins)) => {
            output.lessons.insert(id.clone(), Built::Ok(bins.clone()));
            true
        }
        _ => false,
    });
    Ok(Recompiled {
        lessons: stubbed,
        _kept: Some((copy, built)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_leaves_out_build_output_and_dot_folders_but_cargos() {
        for (rel, is_dir) in [
            ("target", true),
            ("exercises/lesson02-split-heads/target", true),
            (".git", true),
            (".idea", true),
            ("exercises/x.snap.new", false),
        ] {
            assert!(left_out(rel, is_dir), "{rel}");
        }
        for (rel, is_dir) in [
            (".cargo", true),
            ("exercises/lesson02-split-heads/src", true),
            ("exercises/lesson02-split-heads/src/target", false),
            ("Cargo.lock", false),
        ] {
            assert!(!left_out(rel, is_dir), "{rel}");
        }
    }

    #[test]
    fn a_stubbed_exercises_checks_say_why_and_show_its_error() {
        let stubbed = Stubbed {
            broken: vec![Broken {
                name: "merge_heads".into(),
                error: "error[E0308]: mismatched types".into(),
            }],
            first_error: "error[E0308]: mismatched types".into(),
        };
        let message = stubbed.message("merge_heads").unwrap();
        assert!(
            message.starts_with("`merge_heads` does not compile"),
            "{message}"
        );
        assert!(
            message.contains("other exercises compiled without it"),
            "{message}"
        );
        assert!(
            message.ends_with(":\nerror[E0308]: mismatched types"),
            "{message}"
        );
        assert_eq!(stubbed.message("split_heads"), None);
    }
}
