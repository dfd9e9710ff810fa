//! Stage 2 of grading, **build**: every graded lesson's check binary with one cargo invocation.
//!
//! `cargo build --test <check targets> --keep-going --message-format=json` builds all lessons at once; a lesson
//! whose crate does not compile is reported with the compiler's first error while every other
//! lesson still gets its test executable.

pub mod cargo;
pub mod class_cache;
pub mod dep_info;
pub mod freshness;
pub mod kept_builds;
pub mod outside_sources;

use crate::build::kept_builds::KeptBuilds;
use crate::course::Lesson;
use anyhow::{Context as _, Result};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The version of what the build stage decides from a lesson's sources (which lessons count as
/// compiled: today also [`crate::build::outside_sources`]). Kept builds ([`crate::build::kept_builds`]) and
/// freshness records ([`crate::build::freshness`]) carry the decision of the grader that made them, so
/// this is part of their keys: a grader that decides otherwise never reuses them.
pub const DECISIONS: u32 = 2;

/// One check executable of a lesson: the visible checks' target (`lessonNN`) or the hidden
/// checks' (`lessonNN_hidden`).
#[derive(Debug, Clone)]
pub struct CheckBinary {
    /// The executable.
    pub exe: PathBuf,
    /// True for the hidden checks' target.
    pub hidden: bool,
    /// Its size and modification time right after the build, taken under the build lock (see
    /// [`crate::build::freshness`]); `None` when it could not be read.
    pub identity: Option<(u64, u128)>,
}

/// What the build produced for one lesson.
#[derive(Debug, Clone)]
pub enum Built {
    /// The check executables: the visible checks' first, then the hidden checks' (when the lesson
    /// has hidden checks).
    Ok(Vec<CheckBinary>),
    /// The crate did not compile: the first error, trimmed.
    Failed(String),
}

/// Everything one build says about the lessons.
#[derive(Debug, Clone, Default)]
pub struct BuildOutput {
    /// Per lesson id: the check executables or the first error.
    pub lessons: HashMap<String, Built>,
    /// Per lesson id: the compiler's warnings for the lesson's crate, trimmed, in build order.
    pub warnings: HashMap<String, Vec<String>>,
    /// A sandboxed build's private copies of its check executables (the executables above live
    /// there), kept as long as the output: the next submission's build replaces the ones in the
    /// shared target folder while this one's checks still run.
    pub private: Option<std::sync::Arc<crate::fsutil::TempDir>>,
}

/// Where a sandboxed build into `target` compiles: always the same folder for one target folder,
/// so rustc's incremental caches (which name the source files by path) serve the next submission
/// too. The grading copy is mirrored there under the build lock. It lies under the system's
/// temporary folder, like the grading copies: cargo reads the `.cargo/config.toml` of every
/// parent folder, and no course may be one. It belongs to `target` (which exists: the build lock
/// lives in it), and goes once that folder is gone (see [`crate::fsutil::fixed_scratch`]).
fn build_copy(target: &Path) -> PathBuf {
    let key = crate::course::manifest::sha256_hex(target.to_string_lossy().as_bytes());
    crate::fsutil::fixed_scratch(&format!("build-{}", &key[..16]), target)
}

/// Removes from the submissions' target folder `target` whatever earlier builds made of the
/// course's lesson crates (libraries, check executables, fingerprints, incremental caches, the
/// grader's records of their sources), under the build lock, before a submission's sandboxed
/// build: that build can read the folder, and must find no other student's code there. Kept: the
/// lessons about to be built from the very sources the last build of them had (`building`, whose
/// record says so), built from what this student submitted too; the registry's crates and the
/// course's own (`attention`, ...).
fn forget_earlier_submissions(
    target: &Path,
    course: &crate::course::Course,
    building: &[&Inputs],
) -> Result<()> {
    let records = target.join(".xtask-sources");
    let same = |id: &str| {
        building.iter().any(|inputs| {
            inputs.lesson.id == id
                && std::fs::read_to_string(records.join(inputs.lesson.package(false))).ok()
                    == Some(inputs.digest.clone())
        })
    };
    let ids: Vec<&str> = course
        .lessons
        .iter()
        .map(|l| l.id.as_str())
        .filter(|id| !same(id))
        .collect();
    // `<id>-<hash>`, `lib<id>-<hash>.rlib`, `<id>_hidden-<hash>`, `<id>.d`, ...
    let of_a_lesson = |name: &str| {
        let name = name.strip_prefix("lib").unwrap_or(name);
        ids.iter().any(|id| {
            name.strip_prefix(id)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', '.']))
        })
    };
    let debug = target.join("debug");
    let folders =
        ["deps", ".fingerprint", "incremental", "build", "examples"].map(|f| debug.join(f));
    for dir in folders.iter().chain([&debug, &records]) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if !of_a_lesson(&entry.file_name().to_string_lossy()) {
                continue;
            }
            let path = entry.path();
            let removed = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// Replaces `to` with a copy of every file under `from`, modification times kept. `to` is private
/// to this user (it holds the hidden checks' sources), as a temporary directory would be.
fn mirror(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to).with_context(|| format!("cannot clear {}", to.display()))?;
    }
    let mut dir = std::fs::DirBuilder::new();
    dir.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
    dir.create(to)
        .with_context(|| format!("cannot create {}", to.display()))?;
    let files = crate::fsutil::files_under(from, from, &|_, _| false);
    crate::fsutil::copy_files(from, to, &files)
}

// Kept by hand, not `cargo_metadata::Message`: its `CompilerMessage` has no `manifest_path` (how
// diagnostics are matched to a lesson), it rejects a whole message when any unused field changes
// (cargo 1.71's `debuginfo`, oli-obk/cargo_metadata#240), and it adds 4 crates to every cold build.
#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    filenames: Vec<PathBuf>,
    #[serde(default)]
    message: Option<Diagnostic>,
}

#[derive(Deserialize)]
struct Target {
    kind: Vec<String>,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct Diagnostic {
    level: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    spans: Vec<serde_json::Value>,
    #[serde(default)]
    rendered: Option<String>,
    /// Its notes and help, each with spans of its own.
    #[serde(default)]
    children: Vec<Diagnostic>,
}

impl Diagnostic {
    /// The file names of every span the rendered text can quote: this diagnostic's, its
    /// children's, and those of the macro expansions they come from.
    fn quoted_files(&self, out: &mut Vec<String>) {
        fn span_files(span: &serde_json::Value, out: &mut Vec<String>) {
            if let Some(name) = span["file_name"].as_str() {
                out.push(name.to_owned());
            }
            for key in ["span", "def_site_span"] {
                let next = &span["expansion"][key];
                if next.is_object() {
                    span_files(next, out);
                }
            }
        }
        for span in &self.spans {
            span_files(span, out);
        }
        for child in &self.children {
            child.quoted_files(out);
        }
    }
}

/// Keeps the first `max_lines` lines of a rendered compiler error.
pub fn trim_error(rendered: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = rendered.trim_end().lines().collect();
    let mut out = lines[..lines.len().min(max_lines)].join("\n");
    if lines.len() > max_lines {
        out.push_str("\n   ...");
    }
    out
}

/// How long a submission's sandboxed `cargo build` may take when `grade --build-timeout` does not
/// say: the first one of a target folder compiles the registry crates too (about a minute on the
/// development machine), and the lessons alone take seconds. Code that makes the compiler work
/// without end (a macro that expands exponentially; a constant whose evaluation never ends needs
/// `long_running_const_eval` turned off, which `crate::course::refused` refuses) is stopped there.
pub const SUBMISSION_BUILD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Builds the check binaries of `lessons` with one `cargo build --test ... --keep-going`, in
/// `target_dir` when given (else cargo's default), and collects the executables, the first error
/// and the warnings of each lesson's crate. `sandbox`: build a submission in the sandbox, stopped
/// after this long (the lessons it had not built by then fail with a note saying so). A local
/// build takes the lessons whose build of the same contents it kept (see [`crate::build::kept_builds`])
/// and runs cargo for the others only, or not at all.
pub fn build(
    root: &Path,
    lessons: &[&Lesson],
    solutions: bool,
    target_dir: Option<&Path>,
    sandbox: Option<std::time::Duration>,
) -> Result<BuildOutput> {
    let sandboxed = sandbox.is_some();
    // Every build of the grader takes turns on its target directory (see `take_build_lock`). A
    // sandboxed build compiles in the target folder's fixed copy of the grading copy `graded`.
    let graded = root;
    let target = crate::course::layout::target_dir(graded, target_dir);
    let lock = take_build_lock(&target)?;
    let root = &if sandboxed {
        let copy = build_copy(&target);
        mirror(graded, &copy)?;
        copy
    } else {
        graded.to_path_buf()
    };
    let inputs: Vec<Inputs> = lessons
        .iter()
        .map(|lesson| Inputs::read(root, lesson, solutions))
        .collect();
    // A local build takes the lessons it has kept (see `kept_builds`) and builds the others.
    let kept = (!sandboxed).then(|| KeptBuilds::new(&target, root, solutions));
    let mut taken = Vec::new();
    let mut to_build: Vec<(&Inputs, Option<String>)> = Vec::new();
    for lesson in &inputs {
        let key = kept
            .as_ref()
            .map(|kept| kept.key(lesson.lesson, &lesson.digest));
        let build = kept
            .as_ref()
            .zip(key.as_deref())
            .and_then(|(kept, key)| kept.take(lesson.lesson, key));
        match build {
            Some(build) => taken.push((lesson.lesson, build)),
            None => to_build.push((lesson, key)),
        }
    }
    let decided: Vec<&Inputs> = to_build.iter().map(|(lesson, _)| *lesson).collect();
    if sandboxed {
        forget_earlier_submissions(&target, &crate::course::Course::load(graded)?, &decided)?;
    }
    decide_by_content(root, &target, &decided, solutions, sandboxed)?;
    let building: Vec<&Lesson> = decided.iter().map(|lesson| lesson.lesson).collect();
    let (mut result, mut warnings) = if building.is_empty() {
        (HashMap::new(), HashMap::new())
    } else {
        cargo_build(root, &target, &building, solutions, target_dir, sandbox)?
    };
    let private = if sandboxed {
        Some(std::sync::Arc::new(keep_executables(&mut result)?))
    } else {
        for (lesson, (bins, kept_warnings)) in taken {
            result.insert(lesson.id.clone(), Built::Ok(bins));
            if !kept_warnings.is_empty() {
                warnings.insert(lesson.id.clone(), kept_warnings);
            }
        }
        link_executables(&mut result, &target, graded, solutions);
        if let Some(kept) = &kept {
            for (Inputs { lesson, .. }, key) in &to_build {
                if let (Some(key), Some(Built::Ok(bins))) = (key, result.get(&lesson.id)) {
                    let none = Vec::new();
                    let lesson_warnings = warnings.get(&lesson.id).unwrap_or(&none);
                    kept.keep(lesson, key, bins, lesson_warnings);
                }
            }
        }
        None
    };
    drop(lock);
    Ok(BuildOutput {
        lessons: result,
        warnings,
        private,
    })
}

/// Per lesson id, its check executables or its first error; per lesson id, its warnings.
type Compiled = (HashMap<String, Built>, HashMap<String, Vec<String>>);

/// The `cargo build` of `lessons` in the course at `root` (the grading copy's fixed copy for a
/// sandboxed build) into `target`.
fn cargo_build(
    root: &Path,
    target: &Path,
    lessons: &[&Lesson],
    solutions: bool,
    target_dir: Option<&Path>,
    sandbox: Option<std::time::Duration>,
) -> Result<Compiled> {
    let sandboxed = sandbox.is_some();
    let mut args: Vec<String> = ["build", "--keep-going", "--message-format=json"]
        .map(str::to_owned)
        .to_vec();
    for lesson in lessons {
        args.extend(["-p".to_owned(), lesson.package(solutions)]);
    }
    // Only the check binaries (a solution crate has other test targets, e.g. `reproduces_text`).
    for lesson in lessons {
        args.extend(["--test".to_owned(), lesson.check_target().to_owned()]);
        if lesson.has_hidden() {
            args.extend(["--test".to_owned(), lesson.hidden_target()]);
        }
    }
    // The sandboxed build's scratch folder (its HOME, and the supervisor's status file), kept
    // until the build's outcome is read.
    let mut build_home = None;
    let mut cmd = if let Some(limit) = sandbox {
        let (cmd, scratch) = sandboxed_cargo(root, target, &args, limit)?;
        build_home = Some(scratch);
        cmd
    } else {
        let mut cmd = crate::build::cargo::command();
        cmd.args(&args).env_remove("RUSTFLAGS");
        if let Some(dir) = target_dir {
            cmd.env("CARGO_TARGET_DIR", dir);
        }
        cmd
    };
    cmd.current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = cmd.output().context("could not run cargo")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The supervisor's word on how the sandboxed build ended (the build can write that folder,
    // but the supervisor writes the file last; it only chooses a message for unbuilt lessons).
    let timed_out = sandbox.filter(|_| {
        build_home
            .as_ref()
            .is_some_and(|dir: &crate::fsutil::TempDir| {
                std::fs::read_to_string(dir.path().join("status"))
                    .ok()
                    .and_then(|line| crate::run::sandbox::Ended::parse(&line))
                    == Some(crate::run::sandbox::Ended::TimedOut)
            })
    });

    let dir_of: HashMap<PathBuf, &Lesson> = lessons
        .iter()
        .map(|l| (l.crate_dir(root, solutions), *l))
        .collect();
    let lesson_for = |manifest: &Option<PathBuf>| -> Option<&Lesson> {
        let dir = manifest.as_ref()?.parent()?;
        dir_of.get(dir).copied().or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|d| dir_of.get(&d).copied())
        })
    };

    let mut binaries: HashMap<String, Vec<CheckBinary>> = HashMap::new();
    let mut errors: HashMap<String, String> = HashMap::new();
    let mut warnings: HashMap<String, Vec<String>> = HashMap::new();
    let mut first_dependency_error: Option<String> = None;
    // Per lesson id: why a submission's build of its crate would differ from this one (a build
    // script, files compiled from outside the students' sources; see `crate::build::outside_sources`).
    // A submission's build is checked the same way: the container mode's build runs as the
    // grader, which can read the instructors' tree, and a library that compiled any file from
    // outside its copy's students' sources is refused, never run.
    let mut outside: HashMap<String, String> = HashMap::new();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        match msg.reason.as_str() {
            "compiler-artifact" => {
                let Some(target) = msg.target.as_ref() else {
                    continue;
                };
                // A lesson's build script comes before its library, so its word is kept.
                if !solutions
                    && let Some(lesson) = lesson_for(&msg.manifest_path)
                    && let Some(why) = crate::build::outside_sources::differs(
                        root,
                        &lesson.dir,
                        &target.kind,
                        &msg.filenames,
                    )
                {
                    outside.entry(lesson.id.clone()).or_insert(why);
                }
                if !target.kind.iter().any(|k| k == "test") {
                    continue;
                }
                if let (Some(exe), Some(lesson)) = (msg.executable, lesson_for(&msg.manifest_path))
                {
                    let hidden = target.name == lesson.hidden_target();
                    if hidden || target.name == lesson.check_target() {
                        binaries
                            .entry(lesson.id.clone())
                            .or_default()
                            .push(CheckBinary {
                                identity: crate::build::freshness::identity(&exe),
                                exe,
                                hidden,
                            });
                    }
                }
            }
            "compiler-message" => {
                let Some(diag) = msg.message else { continue };
                let lesson = lesson_for(&msg.manifest_path);
                match diag.level.as_str() {
                    "error" => {
                        let mut text = trim_error(diag.rendered.as_deref().unwrap_or("error"), 12);
                        // A submission sees only diagnostics located in its own files: an error
                        // in a check (a hidden one, say) must not show the check's source.
                        if sandboxed
                            && let Some(lesson) = lesson
                            && !in_student_files(&diag, lesson, root)
                        {
                            text = format!(
                                "error: the checks do not compile against your code ({}): \
                                 a function's name, arguments or return type differ from the \
                                 handout's stub",
                                diag.message.lines().next().unwrap_or("")
                            );
                        }
                        match lesson {
                            Some(lesson) => {
                                errors.entry(lesson.id.clone()).or_insert(text);
                            }
                            None => {
                                first_dependency_error.get_or_insert(text);
                            }
                        }
                    }
                    "warning" if !diag.spans.is_empty() || !is_summary(&diag.message) => {
                        if let Some(lesson) = lesson {
                            let text =
                                trim_error(diag.rendered.as_deref().unwrap_or(&diag.message), 12);
                            let list = warnings.entry(lesson.id.clone()).or_default();
                            if !list.contains(&text) {
                                list.push(text);
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let mut result: HashMap<String, Built> = HashMap::new();
    for lesson in lessons {
        let mut bins = binaries.remove(&lesson.id).unwrap_or_default();
        bins.sort_by_key(|b| b.hidden);
        bins.dedup_by(|a, b| a.hidden == b.hidden);
        let complete = bins.iter().any(|b| !b.hidden)
            && (!lesson.has_hidden() || bins.iter().any(|b| b.hidden));
        let built = if let Some(why) = outside.remove(&lesson.id) {
            Built::Failed(why)
        } else if complete {
            Built::Ok(bins)
        } else if let Some(err) = errors.remove(&lesson.id) {
            Built::Failed(err)
        } else if let Some(limit) = timed_out {
            Built::Failed(timed_out_note(limit))
        } else {
            let why = first_dependency_error.clone().unwrap_or_else(|| {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            });
            let missing = if bins.iter().any(|b| !b.hidden) {
                format!(
                    "no hidden-check binary (test target `{}`) was built for {}",
                    lesson.hidden_target(),
                    lesson.id
                )
            } else {
                format!("no check binary was built for {}", lesson.id)
            };
            Built::Failed(format!("{missing}:\n{why}"))
        };
        result.insert(lesson.id.clone(), built);
    }
    Ok((result, warnings))
}

/// Copies every check executable of `built` into a private folder (still under the build lock)
/// and points `built` at the copies.
fn keep_executables(built: &mut HashMap<String, Built>) -> Result<crate::fsutil::TempDir> {
    let private = crate::fsutil::scratch_dir("checks")?;
    for bins in built.values_mut() {
        let Built::Ok(bins) = bins else { continue };
        *bins = copy_executables(bins, private.path())?;
    }
    Ok(private)
}

/// Copies every executable of `bins` into `dir` (same file names) and returns them there (with
/// no identity: only local builds, which never copy, keep one).
pub(crate) fn copy_executables(bins: &[CheckBinary], dir: &Path) -> Result<Vec<CheckBinary>> {
    bins.iter()
        .map(|bin| {
            let name = bin
                .exe
                .file_name()
                .context("a check executable without a name")?;
            let copy = dir.join(name);
            std::fs::copy(&bin.exe, &copy)
                .with_context(|| format!("cannot copy {}", bin.exe.display()))?;
            Ok(CheckBinary {
                exe: copy,
                hidden: bin.hidden,
                identity: None,
            })
        })
        .collect()
}

/// The folder of `target` where local builds of the course at `root` (its exercises, or its
/// solutions) keep their own links to their check executables: one per course copy and side.
fn local_checks_dir(target: &Path, root: &Path, solutions: bool) -> PathBuf {
    let side = if solutions { "solutions" } else { "exercises" };
    let hash = crate::course::layout::course_hash(root);
    target.join("xtask").join(format!("checks-{side}-{hash}"))
}

/// Points every check executable of a local build of `root` at a link of its own in
/// [`local_checks_dir`], still under the build lock. A later build of another copy of the course
/// sharing the target folder (a shared `CARGO_TARGET_DIR`, the grader's tests) writes a new file
/// for the executable it rebuilds in `target/debug/deps` (the linker renames a new file over the
/// old one), so the link still names this build's file while its checks run after the lock is
/// released, and the next warm grade ([`crate::build::freshness`]) finds it unchanged. Where a link
/// cannot be made the executable is copied; where neither works it runs from where cargo put it.
///
/// Folders of course copies that no longer exist (a deleted clone, a test's scratch copy) are
/// removed here too: their links are the last names of old executables.
fn link_executables(
    built: &mut HashMap<String, Built>,
    target: &Path,
    root: &Path,
    solutions: bool,
) {
    let dir = local_checks_dir(target, root, solutions);
    prune_checks_dirs(&target.join("xtask"), &dir);
    let key = crate::course::layout::course_key(root);
    if std::fs::create_dir_all(&dir).is_err() || std::fs::write(dir.join(".root"), key).is_err() {
        return;
    }
    for bins in built.values_mut() {
        let Built::Ok(bins) = bins else { continue };
        for bin in bins {
            let Some(name) = bin.exe.file_name() else {
                continue;
            };
            let link = dir.join(name);
            let new = dir.join(format!(".new-{}", name.to_string_lossy()));
            let _ = std::fs::remove_file(&new);
            let made = std::fs::hard_link(&bin.exe, &new)
                .or_else(|_| std::fs::copy(&bin.exe, &new).map(drop))
                .and_then(|()| std::fs::rename(&new, &link));
            // Renaming a link over another link of the same file leaves both names.
            let _ = std::fs::remove_file(&new);
            if made.is_ok() {
                bin.identity = crate::build::freshness::identity(&link);
                bin.exe = link;
            }
        }
    }
}

/// Removes the `checks-<side>-<course hash>` folders of `xtask_dir` (but `keep`) whose course copy
/// is gone, with that copy's freshness records (`fresh-<course hash>-*.json`, see
/// [`crate::build::freshness`]) and records named the way earlier versions named them (`fresh-<key>.json`,
/// never read again).
fn prune_checks_dirs(xtask_dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(xtask_dir) else {
        return;
    };
    let mut gone_courses = Vec::new();
    let mut records = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(rest) = name.strip_prefix("fresh-") {
            records.push((path, rest.to_owned()));
            continue;
        }
        if path == keep || !name.starts_with("checks-") {
            continue;
        }
        let gone = std::fs::read_to_string(path.join(".root"))
            .map_or(true, |root| !Path::new(&root).exists());
        if gone {
            let _ = std::fs::remove_dir_all(&path);
            if let Some((_, hash)) = name.rsplit_once('-') {
                gone_courses.push(format!("{hash}-"));
            }
        }
    }
    for (path, rest) in records {
        let old_name = !rest.trim_end_matches(".json").contains('-');
        if old_name || gone_courses.iter().any(|c| rest.starts_with(c.as_str())) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Takes the build lock on `root`'s target folder and decides by content whether cargo may reuse
/// the artifacts of `lesson`'s exercise crate (see [`take_build_lock`]), for `demo`, which builds
/// and runs the crate's example with `cargo run`. Hold the returned lock until that has finished:
/// a course copy sharing the target folder (a shared `CARGO_TARGET_DIR`, the grader's tests) could
/// otherwise rebuild the example from its own sources, and `cargo run` take that build for this
/// copy's.
pub fn claim_exercise(root: &Path, lesson: &Lesson) -> Result<std::fs::File> {
    claim(root, &[lesson], false)
}

/// [`claim_exercise`] for the solution crates of `lessons`, for `check`, which runs their own
/// tests with `cargo test`: hold the returned lock until that has finished.
pub fn claim_solutions(root: &Path, lessons: &[&Lesson]) -> Result<std::fs::File> {
    claim(root, lessons, true)
}

/// The build lock on `root`'s target folder, with cargo's reuse of `lessons`' crates (exercises'
/// or `solutions`') decided by content.
fn claim(root: &Path, lessons: &[&Lesson], solutions: bool) -> Result<std::fs::File> {
    let target = crate::course::layout::target_dir(root, None);
    let lock = take_build_lock(&target)?;
    let inputs: Vec<Inputs> = lessons
        .iter()
        .map(|lesson| Inputs::read(root, lesson, solutions))
        .collect();
    let inputs: Vec<&Inputs> = inputs.iter().collect();
    decide_by_content(root, &target, &inputs, solutions, false)?;
    Ok(lock)
}

/// Takes the grader's build lock on the target directory, held until the returned file is dropped.
///
/// Every build takes it and keeps it until its check executables have names of their own outside
/// `debug/deps`: private copies for a sandboxed build (see [`BuildOutput::private`]), links for a
/// local one (see [`link_executables`]).
///
/// Submissions share one target directory, and cargo decides freshness by modification times,
/// not by the workspace's path or the files' contents: another student's build of the same lesson
/// crate could be taken for this one's. So a submission's build (`submission`: its lessons)
/// decides by content instead. Per lesson it compares the SHA-256 of the files the package's build
/// reads from the lesson's two crates (`exercises/<lesson>` and `solutions/<lesson>`, which hold
/// each other's checks; see [`lesson_inputs`]) with the one recorded for the package's last build
/// in this folder
/// (`.xtask-sources/<package>`):
/// - the same: the artifacts were built from these very files, and the files get an old time
///   so cargo reuses them (students who left a lesson as handed out share its build);
/// - different: the package's fingerprints are removed, so cargo rebuilds exactly it.
///
/// Local builds, of the exercises or the solutions (`submission` false), decide the same way,
/// except that files recorded the same are left alone (a student's files keep their times, and
/// cargo's records of the files one crate includes from the other, kept by absolute path, are
/// pointed at this copy's when they name a copy since deleted: see [`crate::build::dep_info`]):
/// several copies of the course sharing one target folder (the grader's tests, a shared
/// `CARGO_TARGET_DIR`) never take each other's artifacts, whether their sources or their checks
/// differ.
fn take_build_lock(target: &Path) -> Result<std::fs::File> {
    std::fs::create_dir_all(target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    let path = target.join(".xtask-build.lock");
    let lock = std::fs::File::create(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    lock.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(lock)
}

/// Under the build lock: decides, per lesson built from `root` into `target` (its exercises'
/// crate, or its solutions' with `solutions`), whether cargo may reuse its artifacts (see
/// [`take_build_lock`]).
fn decide_by_content(
    root: &Path,
    target: &Path,
    lessons: &[&Inputs],
    solutions: bool,
    submission: bool,
) -> Result<()> {
    let recorded = target.join(".xtask-sources");
    std::fs::create_dir_all(&recorded)
        .with_context(|| format!("cannot create {}", recorded.display()))?;
    let fingerprints: Vec<(String, PathBuf)> =
        std::fs::read_dir(target.join("debug").join(".fingerprint"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
    // The course's path as cargo records it (see `dep_info.rs`).
    let here = std::fs::canonicalize(root).ok();
    for &Inputs {
        lesson,
        files,
        digest,
    } in lessons
    {
        let package = lesson.package(solutions);
        let record = recorded.join(&package);
        let same = std::fs::read_to_string(&record).ok().as_deref() == Some(digest.as_str());
        // The package's own fingerprints (`lesson02-<hash>`, or `lesson02-solution-<hash>`),
        // not the other side's.
        let own = fingerprints.iter().filter(|(name, _)| {
            name.strip_prefix(package.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
        });
        if same && !submission {
            // Built from these very contents last time: cargo's own freshness is right, once
            // the files it recorded by absolute path in a copy of the course since deleted are
            // this copy's (see `dep_info.rs`).
            if let Some(here) = &here {
                let dirs = [false, true].map(|side| {
                    crate::course::layout::relative(here, &lesson.crate_dir(here, side))
                });
                for (_, dir) in own {
                    for record in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                        if record.file_name().to_string_lossy().starts_with("dep-") {
                            crate::build::dep_info::repoint(&record.path(), here, &dirs);
                        }
                    }
                }
            }
            continue;
        }
        if same {
            let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
            for (rel, _) in files {
                let _ = std::fs::File::options()
                    .write(true)
                    .open(root.join(rel))
                    .and_then(|f| f.set_modified(old));
            }
            continue;
        }
        for (_, dir) in own {
            let _ = std::fs::remove_dir_all(dir);
        }
        std::fs::write(&record, digest)
            .with_context(|| format!("cannot write {}", record.display()))?;
    }
    Ok(())
}

/// What the build of one of a lesson's crates reads from the lesson's two crates.
struct Inputs<'l> {
    lesson: &'l Lesson,
    /// Each file's path in the course and its bytes (see [`lesson_inputs`]).
    files: Vec<(String, Vec<u8>)>,
    /// Their digest ([`crate::course::manifest::sources_digest`]).
    digest: String,
}

impl<'l> Inputs<'l> {
    fn read(root: &Path, lesson: &'l Lesson, solutions: bool) -> Self {
        let files = lesson_inputs(root, lesson, solutions);
        Inputs {
            lesson,
            digest: crate::course::manifest::sources_digest(&files),
            files,
        }
    }
}

/// Every file the build of one of `lesson`'s crates can read from the lesson's two crates in the
/// course at `root`, with its path there. The exercises' crate (`solutions` false) compiles its
/// own files and the hidden checks ([`Lesson::hidden_dir`], in `solutions/`); the solutions' crate
/// its own files and, through `#[path]`, the exercises' (their setup code and visible checks).
/// Left out: the snapshot folders, which the checks read when they run (blessing them rebuilds
/// nothing), the pristine stubs a handout keeps in `.stubs/` (read by `reset`, never compiled)
/// and insta's scratch files. So a handout, which has no `solutions/`, digests the exercises of a
/// lesson without hidden checks as the instructors' tree does, and shares their build.
fn lesson_inputs(root: &Path, lesson: &Lesson, solutions: bool) -> Vec<(String, Vec<u8>)> {
    // Exactly these folders: a folder of the same name elsewhere (`src/snapshots/`) may hold code.
    let stubs = lesson
        .crate_dir(root, false)
        .join(crate::course::stubs::STUB_DIR);
    let left_out: Vec<String> = lesson
        .snapshot_dirs(root)
        .iter()
        .chain([&stubs])
        .map(|dir| crate::course::layout::relative(root, dir))
        .collect();
    let skip = |rel: &str, is_dir: bool| {
        crate::fsutil::is_scratch_file(rel) || (is_dir && left_out.iter().any(|d| d == rel))
    };
    let other = if solutions {
        lesson.crate_dir(root, true)
    } else {
        lesson.hidden_dir(root)
    };
    [lesson.crate_dir(root, false), other]
        .iter()
        .flat_map(|dir| crate::fsutil::files_under(dir, root, &skip))
        .map(|rel| {
            let bytes = std::fs::read(root.join(&rel)).unwrap_or_default();
            (rel, bytes)
        })
        .collect()
}

/// A `cargo build` of a student's submission that cannot read what it must not: it runs in the
/// sandbox (see [`crate::run::sandbox`]) with read access to the grading copy `root`, the toolchain and
/// the registry only (so `include_str!`, `#[path]` and friends cannot reach the instructors' tree),
/// offline, with a scrubbed environment, the target directory given as an argument (never in the
/// environment, where `env!` could read it).
fn sandboxed_cargo(
    root: &Path,
    target: &Path,
    args: &[String],
    timeout: std::time::Duration,
) -> Result<(Command, crate::fsutil::TempDir)> {
    let scratch = crate::fsutil::scratch_dir("build")?;
    let (cargo_home, rustup_home) = toolchain_homes();
    let program = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cargo"));
    let mut read = vec![root.to_path_buf(), rustup_home.clone()];
    if program.is_absolute() {
        read.push(program.clone());
    }
    let policy = crate::run::sandbox::Policy {
        read,
        write: vec![
            target.to_path_buf(),
            cargo_home.clone(),
            scratch.path().to_path_buf(),
        ],
        hide: Vec::new(),
        timeout,
        status_file: scratch.path().join("status"),
        require: true,
        network: false,
        check_limits: false,
        run_as: None,
    };
    let mut all: Vec<String> = args.to_vec();
    all.extend([
        "--offline".to_owned(),
        "--target-dir".to_owned(),
        target.to_string_lossy().into_owned(),
    ]);
    let mut cmd = policy
        .command(&program, &all)
        .context("cannot find the grader's own executable")?;
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.path())
        .env("TMPDIR", scratch.path())
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_HOME", &rustup_home);
    if let Some(t) = std::env::var_os("RUSTUP_TOOLCHAIN") {
        cmd.env("RUSTUP_TOOLCHAIN", t);
    }
    Ok((cmd, scratch))
}

/// `$CARGO_HOME` and `$RUSTUP_HOME`, or their defaults under `$HOME`.
pub fn toolchain_homes() -> (PathBuf, PathBuf) {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let from = |var: &str, default: &str| {
        std::env::var_os(var).map_or_else(|| home.join(default), PathBuf::from)
    };
    (from("CARGO_HOME", ".cargo"), from("RUSTUP_HOME", ".rustup"))
}

/// Why a lesson of a sandboxed build that was stopped at its time `limit` has no checks.
fn timed_out_note(limit: std::time::Duration) -> String {
    format!(
        "the build did not finish within {} s (the time limit of a submission's build; \
         `--build-timeout` sets it), so this lesson's checks were not built: is there a constant \
         or a macro that makes the compiler work without end?",
        limit.as_secs_f64()
    )
}

/// True when a submission may see the diagnostic as rustc rendered it: its primary span is in
/// the lesson's student sources (`exercises/<dir>/src/`), and every file it quotes (its spans,
/// its notes' and the macro expansions' included) is public: a source of the handout in the build
/// copy `root`, or the registry's, or the standard library's. The hidden checks (`solutions/`,
/// which the build reads to build them) and the instructors' other files are not: a student's
/// `#[path = "../../../solutions/…/hidden/checks.rs"] mod m;` would otherwise show their lines in
/// the compiler's errors (`exercises/…/src/../../../solutions/…` looked like the student's own).
fn in_student_files(diag: &Diagnostic, lesson: &Lesson, root: &Path) -> bool {
    let own = Path::new("exercises").join(&lesson.dir).join("src");
    let primary_is_own = diag.spans.iter().any(|span| {
        span["is_primary"].as_bool() == Some(true)
            && span["file_name"]
                .as_str()
                .and_then(|name| in_copy(name, root))
                .is_some_and(|rel| rel.starts_with(&own))
    });
    let mut files = Vec::new();
    diag.quoted_files(&mut files);
    let (cargo_home, rustup_home) = toolchain_homes();
    let outside = [
        cargo_home.join("registry"),
        rustup_home,
        PathBuf::from("/rustc"),
    ];
    primary_is_own && files.iter().all(|name| is_public(name, root, &outside))
}

/// A span's file relative to the build copy `root`, with `.` and `..` resolved as written (no
/// links followed), or `None` when it lies outside the copy.
pub(crate) fn in_copy(name: &str, root: &Path) -> Option<PathBuf> {
    let path = Path::new(name);
    let rel = if path.is_absolute() {
        lexical(path)?.strip_prefix(root).ok()?.to_path_buf()
    } else {
        lexical(path)?
    };
    Some(rel)
}

/// `path` with `.` and `..` resolved lexically; `None` when a `..` climbs above its start.
fn lexical(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Whether a file a submission's diagnostic quotes may be shown (see [`in_student_files`]): a
/// Rust source of the build copy outside `solutions/`, a file under one of the public folders
/// `outside` the copy (the registry, the toolchain, the standard library's `/rustc/<hash>/`), or
/// a name that is no file (`<built-in>`). Anything else (`/proc/self/cwd/solutions/…` reaches
/// the copy too) is not.
fn is_public(name: &str, root: &Path, outside: &[PathBuf]) -> bool {
    if name.starts_with('<') {
        return true;
    }
    let path = Path::new(name);
    let inside = path.is_relative() || path.starts_with(root);
    if inside {
        return in_copy(name, root).is_some_and(|rel| {
            !rel.starts_with("solutions") && rel.extension() == Some("rs".as_ref())
        });
    }
    lexical(path).is_some_and(|path| outside.iter().any(|public| path.starts_with(public)))
}

/// `"3 warnings emitted"`-style summaries, which are not warnings of their own.
fn is_summary(message: &str) -> bool {
    let words: Vec<&str> = message.split_whitespace().collect();
    matches!(words.as_slice(), [n, w, "emitted"] if n.parse::<u32>().is_ok() && w.starts_with("warning"))
        || message.contains("warnings emitted")
        || message.contains("warning emitted")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_keeps_private_copies_of_its_executables() {
        let target = tempfile::tempdir().unwrap();
        let exe = target.path().join("lesson02-0123");
        std::fs::write(&exe, "this student's checks").unwrap();
        let mut built = HashMap::from([(
            "lesson02".to_owned(),
            Built::Ok(vec![CheckBinary {
                exe: exe.clone(),
                hidden: false,
                identity: None,
            }]),
        )]);
        let private = keep_executables(&mut built).unwrap();
        // The next submission's build replaces the executable in the shared folder.
        std::fs::write(&exe, "the next student's checks").unwrap();
        let Built::Ok(bins) = &built["lesson02"] else {
            panic!("still built")
        };
        assert!(bins[0].exe.starts_with(private.path()));
        assert_eq!(
            std::fs::read_to_string(&bins[0].exe).unwrap(),
            "this student's checks"
        );
    }

    #[test]
    fn a_lessons_build_inputs_are_what_each_crate_compiles_without_snapshots_or_stubs() {
        let root = tempfile::tempdir().unwrap();
        let lesson = crate::course::fixture().lessons.remove(0);
        let files = [
            (false, "src/exercises.rs"),
            (false, "tests/checks.rs"),
            (false, "tests/snapshots/a.snap"),
            (false, "src/b.rs.snap.new"),
            (false, ".stubs/exercises.rs"),
            // Compiled if a module names them: folders of those names elsewhere count.
            (false, "src/snapshots/code.rs"),
            (false, "src/.stubs/code.rs"),
            (true, "src/exercises.rs"),
            (true, "tests/lesson01.rs"),
            (true, "tests/hidden/checks.rs"),
            (true, "tests/hidden/snapshots/b.snap"),
        ];
        for (side, rel) in files {
            let path = lesson.crate_dir(root.path(), side).join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, rel).unwrap();
        }
        let listed = |solutions: bool| -> Vec<String> {
            lesson_inputs(root.path(), &lesson, solutions)
                .into_iter()
                .map(|(rel, bytes)| {
                    assert!(rel.ends_with(std::str::from_utf8(&bytes).unwrap()));
                    rel
                })
                .collect()
        };
        let d = &lesson.dir;
        let paths = |side: &str, files: &[&str]| -> Vec<String> {
            files.iter().map(|f| format!("{side}/{d}/{f}")).collect()
        };
        let exercises_own = paths(
            "exercises",
            &[
                "src/.stubs/code.rs",
                "src/exercises.rs",
                "src/snapshots/code.rs",
                "tests/checks.rs",
            ],
        );
        // The exercises' crate: its own files and the hidden checks, none of the solutions' own.
        let hidden = paths("solutions", &["tests/hidden/checks.rs"]);
        assert_eq!(listed(false), [exercises_own.clone(), hidden].concat());
        // The solutions' crate: both crates.
        let solutions_own = paths(
            "solutions",
            &[
                "src/exercises.rs",
                "tests/hidden/checks.rs",
                "tests/lesson01.rs",
            ],
        );
        assert_eq!(
            listed(true),
            [exercises_own.clone(), solutions_own].concat()
        );
        // Without `solutions/` (a handout), the exercises' inputs are their own files.
        std::fs::remove_dir_all(lesson.crate_dir(root.path(), true)).unwrap();
        assert_eq!(listed(false), exercises_own);
    }

    #[test]
    fn local_builds_run_their_own_links_of_the_executables() {
        let target = tempfile::tempdir().unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let deps = target.path().join("debug/deps");
        std::fs::create_dir_all(&deps).unwrap();
        let exe = deps.join("lesson02-0123");
        // The linker writes a new file and renames it over the old one.
        let link_new = |text: &str| {
            std::fs::write(deps.join("tmp"), text).unwrap();
            std::fs::rename(deps.join("tmp"), &exe).unwrap();
        };
        let built = || {
            HashMap::from([(
                "lesson02".to_owned(),
                Built::Ok(vec![CheckBinary {
                    exe: exe.clone(),
                    hidden: false,
                    identity: crate::build::freshness::identity(&exe),
                }]),
            )])
        };
        let exe_of = |built: &HashMap<String, Built>| match &built["lesson02"] {
            Built::Ok(bins) => (bins[0].exe.clone(), bins[0].identity),
            Built::Failed(e) => panic!("{e}"),
        };
        link_new("copy a's checks");
        let mut of_a = built();
        link_executables(&mut of_a, target.path(), a.path(), false);
        let (a_exe, a_identity) = exe_of(&of_a);
        // Copy b rebuilds the lesson in the shared folder; copy a still runs its own build.
        link_new("copy b's checks, longer");
        let mut of_b = built();
        link_executables(&mut of_b, target.path(), b.path(), false);
        let (b_exe, _) = exe_of(&of_b);
        assert_ne!(a_exe, b_exe);
        assert_eq!(std::fs::read_to_string(&a_exe).unwrap(), "copy a's checks");
        assert_eq!(crate::build::freshness::identity(&a_exe), a_identity);
        assert_eq!(
            std::fs::read_to_string(&b_exe).unwrap(),
            "copy b's checks, longer"
        );
        // The solutions of copy a keep links apart from its exercises.
        let mut solutions = built();
        link_executables(&mut solutions, target.path(), a.path(), true);
        assert_ne!(exe_of(&solutions).0, a_exe);
        // Linking the same build again leaves one name for it.
        let mut again = built();
        link_executables(&mut again, target.path(), b.path(), false);
        assert_eq!(exe_of(&again).0, b_exe);
        let names = crate::fsutil::files_under(
            b_exe.parent().unwrap(),
            b_exe.parent().unwrap(),
            &|_, _| false,
        );
        assert_eq!(names, [".root", "lesson02-0123"]);
        // A copy that is gone loses its folder and its freshness records at the next local build;
        // records of old versions' naming go too, the other copy's stay.
        let a_dir = a_exe.parent().unwrap().to_path_buf();
        let xtask = target.path().join("xtask");
        let record = |root: &Path, key: &str| {
            let hash = crate::course::layout::course_hash(root);
            let file = xtask.join(format!("fresh-{hash}-{key}.json"));
            std::fs::write(&file, "{}").unwrap();
            file
        };
        let (a_record, b_record) = (record(a.path(), "00aa"), record(b.path(), "00bb"));
        let old_record = xtask.join("fresh-0123456789abcdef.json");
        std::fs::write(&old_record, "{}").unwrap();
        drop(a);
        link_executables(&mut built(), target.path(), b.path(), false);
        assert!(!a_dir.exists());
        assert!(b_exe.exists());
        assert!(!a_record.exists() && !old_record.exists());
        assert!(b_record.exists());
    }

    #[test]
    fn the_build_copy_mirrors_the_grading_copy_and_keeps_its_path() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        assert_eq!(build_copy(a.path()), build_copy(a.path()));
        assert_ne!(build_copy(a.path()), build_copy(b.path()));
        std::fs::create_dir_all(a.path().join("exercises/l/src")).unwrap();
        std::fs::write(a.path().join("exercises/l/src/lib.rs"), "new").unwrap();
        let to = b.path().join("copy");
        std::fs::create_dir_all(to.join("exercises/old")).unwrap();
        std::fs::write(to.join("exercises/old/stale.rs"), "left over").unwrap();
        mirror(a.path(), &to).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&to).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "the build copy is private");
        }
        assert_eq!(
            crate::fsutil::files_under(&to, &to, &|_, _| false),
            vec!["exercises/l/src/lib.rs".to_owned()]
        );
    }

    #[test]
    fn long_errors_are_trimmed() {
        let text = (1..=20)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let t = trim_error(&text, 3);
        assert_eq!(t, "line 1\nline 2\nline 3\n   ...");
        assert_eq!(trim_error("one\n", 3), "one");
    }

    #[test]
    fn a_submission_sees_errors_that_quote_only_public_files() {
        let lesson = crate::course::fixture().lessons.remove(0);
        let root = Path::new("/tmp/xtask-build-copy");
        let own = format!("exercises/{}/src/exercises.rs", lesson.dir);
        let hidden = "solutions/x/tests/hidden/checks.rs";
        let span = |file: &str, primary: bool| serde_json::json!({"file_name": file, "is_primary": primary});
        // An error at `primary`, with a note at `note` (when given).
        let diag = |primary: &str, note: Option<serde_json::Value>| -> Diagnostic {
            serde_json::from_value(serde_json::json!({
                "level": "error",
                "message": "mismatched types",
                "spans": [span(primary, true)],
                "children": note.map(|n| vec![serde_json::json!({"level": "note", "spans": [n]})]).unwrap_or_default(),
            }))
            .unwrap()
        };
        let shown = |d: &Diagnostic| in_student_files(d, &lesson, root);
        let note = |file: &str| Some(span(file, true));
        assert!(shown(&diag(&own, None)));
        assert!(shown(&diag(&format!("{}/{own}", root.display()), None)));
        // The student's own files, reached through `..`, are still theirs; a hidden check is not.
        assert!(shown(&diag(
            &format!("exercises/{0}/src/../src/exercises.rs", lesson.dir),
            None
        )));
        let through = format!("exercises/{}/src/../../../{hidden}", lesson.dir);
        assert!(!shown(&diag(&through, None)));
        assert!(!shown(&diag(hidden, None)));
        // Notes: the handout's sources, the registry's and the standard library's are public.
        assert!(shown(&diag(&own, note("crates/attention/src/softmax.rs"))));
        let (cargo_home, _) = toolchain_homes();
        let registry = cargo_home.join("registry/src/index/ndarray-0.17.2/src/lib.rs");
        assert!(shown(&diag(&own, note(&registry.to_string_lossy()))));
        assert!(shown(&diag(
            &own,
            note("/rustc/0123abc/library/core/src/cmp.rs")
        )));
        assert!(shown(&diag(&own, note("<built-in>"))));
        // ... the hidden checks, the course file and other ways into the copy are not.
        assert!(!shown(&diag(&own, note(&through))));
        assert!(!shown(&diag(&own, note(hidden))));
        assert!(!shown(&diag(&own, note("course.toml"))));
        assert!(!shown(&diag(
            &own,
            note(&format!("/proc/self/cwd/{hidden}"))
        )));
        assert!(!shown(&diag(
            &own,
            note(&format!("{}/{hidden}", root.display()))
        )));
        let escape = format!("{}/../../{}", cargo_home.join("registry").display(), hidden);
        assert!(!shown(&diag(&own, note(&escape))));
        // ... nor a macro's definition there.
        let expanded = serde_json::json!({
            "file_name": own, "is_primary": true,
            "expansion": {"span": span(&own, false), "def_site_span": span(&through, false)},
        });
        assert!(!shown(&diag(&own, Some(expanded))));
    }

    #[test]
    fn warning_summaries_are_not_warnings() {
        assert!(super::is_summary("2 warnings emitted"));
        assert!(super::is_summary("1 warning emitted"));
        assert!(!super::is_summary("unused variable: `x`"));
    }
}
