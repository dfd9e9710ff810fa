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
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// Lesson files already split, by their text: files left as handed out are split once.
type Cache = HashMap<String, Option<Units>>;

/// The tokens of `unit` in a lesson file split into `units`.
fn tokens_of<'u>(units: &'u Units, unit: &Unit) -> &'u [normalize::Token] {
    match unit.exercise {
        Some(i) => &units.exercises[i],
        None => &units.other,
    }
}

/// The units of the lesson file `text` of `lesson`, from the cache when it was seen before.
fn split<'c>(cache: &'c mut Cache, text: String, lesson: &Lesson) -> &'c Option<Units> {
    cache.entry(text).or_insert_with_key(|text| {
        let names: Vec<&str> = lesson.exercises.iter().map(|e| e.name.as_str()).collect();
        normalize::units(text, &names)
    })
}

/// Every k-gram hash of the handed-out stubs of the lessons `units` cover (the instructors'
/// `exercises/<dir>/src/exercises.rs`, what `cargo xtask dist` ships), sorted.
pub fn handout(root: &Path, course: &Course, units: &[Unit]) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    let mut lessons: Vec<usize> = units.iter().map(|u| u.lesson).collect();
    lessons.dedup();
    for l in lessons {
        let lesson = &course.lessons[l];
        let path = crate::course::stubs::exercise_path(root, lesson);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the handout's {}", path.display()))?;
        if let Some(split) = normalize::units(&text, &[]) {
            out.extend(winnow::kgram_hashes(&split.other));
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Stack of a reading thread: `syn` parses by recursion, about 14 KiB per nesting level
/// unoptimised, up to `normalize`'s limit of 128.
const STACK_BYTES: usize = 8 << 20;

/// What reading one entry gave: its fingerprints per unit and its lessons that do not tokenize.
type Read = Result<(Vec<Vec<u64>>, Vec<String>)>;

/// The fingerprints of each readable entry of the submissions folder `dir`, read on every core;
/// an entry that cannot be opened is named on standard error and left out.
pub fn read(course: &Course, dir: &Path, units: &[Unit]) -> Result<Vec<Prints>> {
    let entries = crate::official::entry::class_entries(dir)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Read)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..threads.min(entries.len()) {
            let (next, results, entries) = (&next, &results, &entries);
            std::thread::Builder::new()
                .stack_size(STACK_BYTES)
                .spawn_scoped(s, move || {
                    // Each thread splits the files it meets once (`proc_macro2` keeps its spans'
                    // source text per thread).
                    let mut cache = Cache::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(entry) = entries.get(i) else { break };
                        let read = prints(course, &entry.path, units, &mut cache);
                        results.lock().expect("results").push((i, read));
                    }
                })
                .context("cannot start a thread")?;
        }
        Ok(())
    })?;
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    let mut out = Vec::new();
    for ((_, read), entry) in results.into_iter().zip(entries) {
        let id = student_text::name(&entry.id);
        match read {
            Ok((units, unreadable)) => {
                for lesson in unreadable {
                    eprintln!(
                        "similarity: {id}: {lesson} is not compared: its {} does not tokenize as \
                         Rust",
                        crate::course::stubs::EXERCISE_FILE
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

/// One submission's fingerprints per unit, and the ids of its lessons whose file does not
/// tokenize. A lesson without its file has no code to compare.
fn prints(course: &Course, path: &Path, units: &[Unit], cache: &mut Cache) -> Read {
    // Out of an archive, only the lesson files: a whole handout is hundreds of files to write.
    let lesson_file =
        |p: &Path| p.ends_with(Path::new("src").join(crate::course::stubs::EXERCISE_FILE));
    let (_unpacked, dir) = crate::official::entry::open_only(path, course, Some(&lesson_file))?;
    let exercises = crate::official::submission::locate(&dir, course)?.exercises;
    let mut out = vec![Vec::new(); units.len()];
    let mut unreadable = Vec::new();
    let mut lesson_at = 0;
    while lesson_at < units.len() {
        let l = units[lesson_at].lesson;
        let lesson = &course.lessons[l];
        let end = lesson_at
            + units[lesson_at..]
                .iter()
                .take_while(|u| u.lesson == l)
                .count();
        let file = exercises
            .join(&lesson.dir)
            .join("src")
            .join(crate::course::stubs::EXERCISE_FILE);
        if file.exists() {
            let name = format!(
                "exercises/{}/src/{}",
                lesson.dir,
                crate::course::stubs::EXERCISE_FILE
            );
            let text =
                String::from_utf8_lossy(&crate::official::submission::read_source(&file, &name)?)
                    .into_owned();
            match split(cache, text, lesson) {
                Some(split) => {
                    for (i, unit) in units.iter().enumerate().take(end).skip(lesson_at) {
                        out[i] = winnow::fingerprints(tokens_of(split, unit));
                    }
                }
                None => unreadable.push(lesson.id.clone()),
            }
        }
        lesson_at = end;
    }
    Ok((out, unreadable))
}
