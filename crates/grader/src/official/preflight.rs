//! Official grading's preflight: the instructors' course is checked before any submission is
//! touched, so that a mistake in course.toml or the tree stops grading loudly instead of giving a
//! whole class zeros (a lesson folder misspelled in course.toml graded every student 0 on it).

use crate::course::{Course, Lesson, line_of};
use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// The first problem of the course at `root` that would grade submissions wrong, as one message
/// naming the file and line: a lesson's folders or checks file missing, a check of course.toml
/// that is no test function there, the hidden checks missing, the course secret missing or
/// malformed (when there are variant checks), the manifest not matching the tree.
pub fn check(root: &Path, course: &Course) -> Result<()> {
    let text = std::fs::read_to_string(root.join("course.toml")).unwrap_or_default();
    let at = |after: Option<&str>, needle: &str| {
        line_of(&text, after, needle, 1)
            .map_or_else(|| "course.toml".to_owned(), |n| format!("course.toml:{n}"))
    };
    for lesson in &course.lessons {
        let here = format!("id = \"{}\"", lesson.id);
        for side in [
            crate::course::Side::Exercises,
            crate::course::Side::Solutions,
        ] {
            let dir = lesson.crate_dir(root, side);
            if !dir.join("Cargo.toml").is_file() {
                bail!(
                    "{}: lesson `{}` names the folder `{}`, and {} has no Cargo.toml: nothing \
                     was graded\n  help: fix `dir` there, or restore the folder",
                    at(Some(&here), &format!("dir = \"{}\"", lesson.dir)),
                    lesson.id,
                    lesson.dir,
                    crate::fsutil::relative(root, &dir)
                );
            }
        }
        for check in lesson.exercises.iter().flat_map(|e| &e.checks) {
            let file = if check.variant {
                crate::fsutil::relative(root, &lesson.hidden_dir(root).join("variants.rs"))
            } else {
                checks_file(root, lesson, check.hidden)
            };
            let source = std::fs::read_to_string(root.join(&file)).unwrap_or_default();
            if !defines_test(&source, &check.name) {
                bail!(
                    "{}: the check `{}` is no test function of {file}: nothing was graded\n  \
                     help: fix its name there, or write the test",
                    at(Some(&here), &format!("name = \"{}\"", check.name)),
                    check.name
                );
            }
        }
    }
    // The variant checks' inputs come from the course secret: without it none can be graded.
    if course.lessons.iter().any(Lesson::has_variants) {
        crate::variants::secret::load(root).context("nothing was graded")?;
    }
    if let Some(first) = crate::course::manifest::differences(root, course).first() {
        bail!(
            "{}: the course's files are not what it records ({first}): nothing was graded\n  help: \
             run `cargo xtask check`, and `cargo xtask manifest` once the changes are intended",
            crate::course::manifest::FILE
        );
    }
    Ok(())
}

/// Where the checks of `lesson` are, relative to the course root: the visible ones' file, or the
/// hidden ones'.
fn checks_file(root: &Path, lesson: &Lesson, hidden: bool) -> String {
    let file = if hidden {
        lesson.hidden_dir(root).join("checks.rs")
    } else {
        lesson
            .crate_dir(root, crate::course::Side::Exercises)
            .join("tests")
            .join("checks.rs")
    };
    crate::fsutil::relative(root, &file)
}

/// Whether Rust source `text` defines a function `name` (a test's `fn name(`).
fn defines_test(text: &str, name: &str) -> bool {
    text.match_indices(&format!("fn {name}"))
        .any(|(at, m)| text[at + m.len()..].trim_start().starts_with('('))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_function_is_found_by_its_whole_name() {
        let text = "#[test]\nfn split_heads_moves_data() {}\nfn merge_ab () {}";
        assert!(defines_test(text, "split_heads_moves_data"));
        assert!(defines_test(text, "merge_ab"));
        assert!(!defines_test(text, "split_heads"));
        assert!(!defines_test(text, "merge"));
    }
}
