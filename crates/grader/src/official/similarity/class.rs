//! A class's fingerprints: every submission's lesson files read (archives unpacked as grading
//! unpacks them), split into units and fingerprinted, and the handout's code that never counts.

use super::normalize::{self, Units};
use super::pairs::Prints;
use super::winnow;
use crate::course::{Course, Lesson};
use crate::report::student_text;
use anyhow::{Context as _, Result};
use std::collections::HashMap;
use std::path::Path;

/// One unit of the comparison: an exercise's `fn`, or a lesson's other code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Index of its lesson in the course.
    pub lesson: usize,
    /// Index of its exercise in the lesson, `None` for the lesson's other code.
    pub exercise: Option<usize>,
    /// Its name in the report: the exercise's, or `<lesson id>:other`.
    pub name: String,
}

/// Every unit of `lesson` (index `index`): its exercises, then its other code.
pub fn lesson_units(index: usize, lesson: &Lesson) -> Vec<Unit> {
    let exercises = lesson.exercises.iter().enumerate().map(|(i, e)| Unit {
        lesson: index,
        exercise: Some(i),
        name: e.name.clone(),
    });
    exercises
        .chain([Unit {
            lesson: index,
            exercise: None,
            name: format!("{}:other", lesson.id),
        }])
        .collect()
}

/// Source files already fingerprinted, by their lesson and text: files left as handed out are
/// split and winnowed once. Per exercise of the lesson, then its other code; `None` when the text
/// does not tokenize.
type Cache = HashMap<(usize, String), Option<Vec<Vec<u64>>>>;

/// The fingerprints of the source file `text` of the lesson `l` of `course`, from the cache when
/// it was seen before.
fn split<'c>(
    cache: &'c mut Cache,
    text: String,
    course: &Course,
    l: usize,
) -> Option<&'c [Vec<u64>]> {
    let found = cache.entry((l, text)).or_insert_with_key(|(_, text)| {
        let lesson = &course.lessons[l];
        let names: Vec<&str> = lesson.exercises.iter().map(|e| e.name.as_str()).collect();
        let split: Units = normalize::units(text, &names)?;
        let mut out: Vec<Vec<u64>> = split
            .exercises
            .iter()
            .map(|e| winnow::fingerprints(e))
            .collect();
        out.push(winnow::fingerprints(&split.other));
        Some(out)
    });
    found.as_deref()
}

/// The handed-out code of the lessons compared: every k-gram hash, sorted.
#[derive(Debug, Default)]
pub struct Handout {
    /// Of the stubs (`exercises/<dir>/src/exercises.rs`).
    stubs: Vec<u64>,
    /// Of every file of `exercises/<dir>/src/` (what `cargo xtask dist` ships).
    sources: Vec<u64>,
}

impl Handout {
    /// What never counts in `unit`: an exercise's `fn` loses the stubs' code, the other code
    /// every source's (a student's untouched `lib.rs` is no one's own work). The handout's other
    /// files are not taken from exercises: their short shared runs (a signature's shape) would
    /// leave a short exercise too few fingerprints to tell.
    pub fn of(&self, unit: &Unit) -> &[u64] {
        match unit.exercise {
            Some(_) => &self.stubs,
            None => &self.sources,
        }
    }
}

/// The handed-out code of the lessons `units` cover, from the instructors' `exercises/` at `root`.
pub fn handout(root: &Path, course: &Course, units: &[Unit]) -> Result<Handout> {
    let mut out = Handout::default();
    let mut lessons: Vec<usize> = units.iter().map(|u| u.lesson).collect();
    lessons.dedup();
    for l in lessons {
        let src = course.lessons[l]
            .crate_dir(root, crate::course::Side::Exercises)
            .join("src");
        for rel in crate::fsutil::files_under(&src, &src, &|_, _| false) {
            if !rel.ends_with(".rs") {
                continue;
            }
            let path = src.join(&rel);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read the handout's {}", path.display()))?;
            if let Some(split) = normalize::units(&text, &[]) {
                let hashes = winnow::kgram_hashes(&split.other);
                if rel == crate::course::stubs::EXERCISE_FILE {
                    out.stubs.extend(&hashes);
                }
                out.sources.extend(hashes);
            }
        }
    }
    for set in [&mut out.stubs, &mut out.sources] {
        set.sort_unstable();
        set.dedup();
    }
    Ok(out)
}

/// What reading one entry gave: its fingerprints per unit and its source files that do not
/// tokenize.
type Read = Result<(Vec<Vec<u64>>, Vec<String>)>;

/// The fingerprints of each readable entry of the submissions folder `dir`, read on every core;
/// an entry that cannot be opened is named on standard error and left out.
pub fn read(course: &Course, dir: &Path, units: &[Unit]) -> Result<Vec<Prints>> {
    let entries = crate::official::entry::class_entries(dir)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Files left as handed out are split once per thread.
    let results = crate::fsutil::par_map_with(threads, &entries, Cache::new, |cache, entry| {
        // A bug met in one submission costs that submission only.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            prints(course, &entry.path, units, cache)
        }))
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the grader failed to read it")))
    });
    let mut out = Vec::new();
    for (read, entry) in results.into_iter().zip(entries) {
        let id = student_text::name(&entry.id);
        match read {
            Ok((units, unreadable)) => {
                for file in unreadable {
                    eprintln!(
                        "similarity: {id}: {} is not compared: it does not tokenize as Rust",
                        student_text::name(&file)
                    );
                }
                out.push(Prints {
                    id: entry.id,
                    units,
                });
            }
            Err(e) => eprintln!(
                "similarity: {id} is skipped: {}",
                student_text::message(&format!("{e:#}"))
            ),
        }
    }
    Ok(out)
}

/// One submission's fingerprints per unit, and the names of its source files that do not
/// tokenize. Every `.rs` file of a lesson's `src/` counts: a copy moved into another file (and
/// re-exported with `pub use`) is compared all the same.
fn prints(course: &Course, path: &Path, units: &[Unit], cache: &mut Cache) -> Read {
    // Out of an archive, only the compared lessons' sources (`<lesson dir>/src/...`): a whole
    // handout is hundreds of files to write.
    let dirs: Vec<&str> = units
        .iter()
        .map(|u| course.lessons[u.lesson].dir.as_str())
        .collect();
    let source = |p: &Path| {
        let parts: Vec<_> = p.components().map(|c| c.as_os_str()).collect();
        parts
            .windows(2)
            .any(|w| w[1] == "src" && dirs.iter().any(|d| w[0] == *d))
    };
    let (_unpacked, dir) = crate::official::entry::open_only(path, course, Some(&source))?;
    let sub = crate::official::submission::locate(&dir, course)?;
    let sources = crate::official::submission::read_sources(course, &sub)?;
    Ok(fingerprints(course, &sources, units, cache))
}

/// The fingerprints per unit of a submission's `sources` (`(name in the handout, bytes)`), and
/// the names of those that do not tokenize.
fn fingerprints(
    course: &Course,
    sources: &[(String, Vec<u8>)],
    units: &[Unit],
    cache: &mut Cache,
) -> (Vec<Vec<u64>>, Vec<String>) {
    let mut out = vec![Vec::new(); units.len()];
    let mut unreadable = Vec::new();
    for (name, bytes) in sources {
        let lesson = course.lessons.iter().position(|l| {
            name.strip_prefix("exercises/")
                .and_then(|n| n.strip_prefix(l.dir.as_str()))
                .is_some_and(|n| n.starts_with("/src/"))
        });
        let Some(l) = lesson.filter(|_| name.ends_with(".rs")) else {
            continue;
        };
        if !units.iter().any(|u| u.lesson == l) {
            continue;
        }
        let text = String::from_utf8_lossy(bytes).into_owned();
        match split(cache, text, course, l) {
            Some(split) => {
                for (i, unit) in units.iter().enumerate().filter(|(_, u)| u.lesson == l) {
                    let other = split.len() - 1;
                    out[i].extend(&split[unit.exercise.unwrap_or(other)]);
                }
            }
            None => unreadable.push(name.clone()),
        }
    }
    for prints in &mut out {
        prints.sort_unstable();
        prints.dedup();
    }
    (out, unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANSWER: &str = "pub fn split_heads(x: &Array3<f64>, h: usize) -> Result<Array4<f64>, E> {
    let (bsz, t, c) = x.dim();
    let hs = head_size(c, h)?;
    let mut out = Array4::<f64>::zeros((bsz, h, t, hs));
    for bi in 0..bsz {
        for ti in 0..t {
            for hi in 0..h {
                for d in 0..hs {
                    out[[bi, hi, ti, d]] = x[[bi, ti, hi * hs + d]];
                }
            }
        }
    }
    Ok(out)
}
";

    const OTHER_ANSWER: &str =
        "pub fn split_heads(x: &Array3<f64>, h: usize) -> Result<Array4<f64>, E> {
    let (b, t, c) = x.dim();
    if c % h != 0 {
        return Err(E::new(\"split_heads\", \"a width the heads divide\", &[c]));
    }
    let heads = x.to_owned().into_shape_with_order((b, t, h, c / h)).map_err(E::from)?;
    Ok(heads.permuted_axes([0, 2, 1, 3]).as_standard_layout().into_owned())
}
";

    /// The similar pairs of a class given as in-memory sources: per student, `(file of
    /// `exercises/d/src/`, text)`.
    fn class_pairs(
        course: &Course,
        class: &[(&str, Vec<(&str, String)>)],
    ) -> Vec<(String, String, Vec<String>)> {
        let units: Vec<Unit> = lesson_units(0, &course.lessons[0]);
        let mut cache = Cache::new();
        let prints = class
            .iter()
            .map(|(id, files)| {
                let sources: Vec<(String, Vec<u8>)> = files
                    .iter()
                    .map(|(f, text)| (format!("exercises/d/src/{f}"), text.clone().into_bytes()))
                    .collect();
                let (units, _) = fingerprints(course, &sources, &units, &mut cache);
                Prints {
                    id: (*id).to_owned(),
                    units,
                }
            })
            .collect();
        let names: Vec<String> = units.iter().map(|u| u.name.clone()).collect();
        let handout = vec![&[][..]; names.len()];
        super::super::pairs::pairs(prints, &names, &handout, 0.5)
            .into_iter()
            .map(|p| (p.a, p.b, p.exercises))
            .collect()
    }

    #[test]
    fn a_copy_moved_into_another_file_is_compared() {
        let course = crate::course::fixture();
        let moved = ANSWER.replace("bsz", "batch").replace("hi", "head");
        let class = [
            ("alice", vec![("exercises.rs", ANSWER.to_owned())]),
            (
                "bob",
                vec![
                    (
                        "exercises.rs",
                        "pub use crate::mine::split_heads;\n".to_owned(),
                    ),
                    ("mine.rs", moved),
                    ("notes.txt", ANSWER.to_owned()),
                ],
            ),
            ("carol", vec![("exercises.rs", OTHER_ANSWER.to_owned())]),
        ];
        let found = class_pairs(&course, &class);
        assert_eq!(
            found,
            [(
                "alice".to_owned(),
                "bob".to_owned(),
                vec!["split_heads".to_owned()]
            )]
        );
    }

    #[test]
    fn a_file_too_deep_to_parse_costs_only_its_own_comparison() {
        let course = crate::course::fixture();
        let deep = format!(
            "pub fn split_heads(x: bool) -> bool {{ {}x }}\n",
            "!".repeat(100_000)
        );
        let class = [
            ("alice", vec![("exercises.rs", ANSWER.to_owned())]),
            ("bob", vec![("exercises.rs", ANSWER.replace("bsz", "n"))]),
            (
                "mallory",
                vec![("exercises.rs", deep.clone()), ("more.rs", deep)],
            ),
            ("carol", vec![("exercises.rs", OTHER_ANSWER.to_owned())]),
        ];
        let found = class_pairs(&course, &class);
        assert_eq!(
            found,
            [(
                "alice".to_owned(),
                "bob".to_owned(),
                vec!["split_heads".to_owned()]
            )]
        );
    }

    #[test]
    fn one_text_in_two_lessons_splits_into_each_lessons_exercises() {
        let course: Course = toml::from_str(
            r#"
            [course]
            title = "t"
            [[lessons]]
            id = "one"
            dir = "one"
            title = "t"
            [[lessons.exercises]]
            name = "a"
            checks = [{ name = "a1", points = 1 }]
            [[lessons]]
            id = "two"
            dir = "two"
            title = "t"
            [[lessons.exercises]]
            name = "b"
            checks = [{ name = "b1", points = 1 }]
            [[lessons.exercises]]
            name = "split_heads"
            checks = [{ name = "b2", points = 1 }]
            "#,
        )
        .unwrap();
        let units: Vec<Unit> = (0..2)
            .flat_map(|l| lesson_units(l, &course.lessons[l]))
            .collect();
        let sources: Vec<(String, Vec<u8>)> = ["one", "two"]
            .iter()
            .map(|d| {
                (
                    format!("exercises/{d}/src/same.rs"),
                    ANSWER.as_bytes().to_vec(),
                )
            })
            .collect();
        let (prints, unreadable) = fingerprints(&course, &sources, &units, &mut Cache::new());
        assert!(unreadable.is_empty());
        let names: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["a", "one:other", "b", "split_heads", "two:other"]);
        let sizes: Vec<bool> = prints.iter().map(|p| !p.is_empty()).collect();
        assert_eq!(sizes, [false, true, false, true, false]);
    }
}
