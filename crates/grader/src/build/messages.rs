//! Reading `cargo build --message-format=json`: each lesson's check executables, its first error
//! (only what a submission may see) and its warnings.

use crate::build::output::{Built, CheckBinary, Compiled, identity};
use crate::build::outside_sources::{in_copy, lexical};
use crate::build::stub_out::{At, CompileError};
use crate::course::{Lesson, Side};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
    primary_is_own && quotes_only_public(diag, root)
}

/// True when every file `diag` quotes (see [`in_student_files`]) is public.
fn quotes_only_public(diag: &Diagnostic, root: &Path) -> bool {
    quotes_only(diag, root, false)
}

/// True when every file `diag` quotes is public or in the build copy `root` (whose only files
/// beside the handout's are the hidden checks' sources). Its one-line message may quote what a
/// file holds (`include!` of the course secret: "cannot find value `e782a7…`"), so a submission
/// sees it only then.
fn quotes_only_the_copy(diag: &Diagnostic, root: &Path) -> bool {
    quotes_only(diag, root, true)
}

fn quotes_only(diag: &Diagnostic, root: &Path, copy_too: bool) -> bool {
    let mut files = Vec::new();
    diag.quoted_files(&mut files);
    let (cargo_home, rustup_home) = crate::build::cargo::toolchain_homes();
    let outside = [
        cargo_home.join("registry"),
        rustup_home,
        PathBuf::from("/rustc"),
    ];
    files.iter().all(|name| {
        let path = Path::new(name);
        is_public(name, root, &outside)
            || (copy_too
                && (path.is_relative() || path.starts_with(root))
                && in_copy(name, root).is_some())
    })
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

/// Where `diag` is in `lesson`'s sources (`exercises/<dir>/src/`) of the course built at `root`:
/// its primary span, or the call site of the macro expansion that span comes from; `None` when
/// neither is there.
fn error_at(diag: &Diagnostic, lesson: &Lesson, root: &Path) -> Option<At> {
    let own = Path::new("exercises").join(&lesson.dir).join("src");
    let mut span = diag
        .spans
        .iter()
        .find(|span| span["is_primary"].as_bool() == Some(true))?;
    loop {
        let file = span["file_name"]
            .as_str()
            .and_then(|name| in_copy(name, root));
        if let Some(file) = file.filter(|file| file.starts_with(&own)) {
            let number = |key: &str| span[key].as_u64().map(|n| n as usize);
            return Some(At {
                file: crate::fsutil::relative(Path::new(""), &file),
                start: (number("line_start")?, number("column_start")?),
                end: (number("line_end")?, number("column_end")?),
            });
        }
        span = &span["expansion"]["span"];
        if !span.is_object() {
            return None;
        }
    }
}

/// `"3 warnings emitted"`-style summaries, which are not warnings of their own.
fn is_summary(message: &str) -> bool {
    let words: Vec<&str> = message.split_whitespace().collect();
    matches!(words.as_slice(), [n, w, "emitted"] if n.parse::<u32>().is_ok() && w.starts_with("warning"))
        || message.contains("warnings emitted")
        || message.contains("warning emitted")
}

/// What the messages of one build said so far, per lesson.
#[derive(Default)]
struct Collected {
    binaries: HashMap<String, Vec<CheckBinary>>,
    errors: HashMap<String, String>,
    /// Per lesson id: every error, with its place.
    located: HashMap<String, Vec<CompileError>>,
    warnings: HashMap<String, Vec<String>>,
    first_dependency_error: Option<String>,
    /// Per lesson id: why a submission's build of its crate would differ from this one (a build
    /// script, files compiled from outside the students' sources; see
    /// [`crate::build::outside_sources`]). A submission's build is checked the same way, besides
    /// its sandbox: a library that compiled any file from outside its copy's students' sources is
    /// refused.
    outside: HashMap<String, String>,
}

/// One build's lessons and how their messages are read.
pub(crate) struct Reader<'a> {
    /// The course the build compiled (the grading copy's fixed copy for a sandboxed build).
    pub root: &'a Path,
    /// The lessons built.
    pub lessons: &'a [&'a Lesson],
    /// Which of their crates.
    pub side: Side,
    /// A submission's build: errors are shown only when they quote public files.
    pub sandboxed: bool,
    /// The time limit the sandboxed build was stopped at, if it was.
    pub timed_out: Option<std::time::Duration>,
}

impl Reader<'_> {
    /// Each lesson's executables or first error, and its warnings, from cargo's `stdout` (and
    /// the tail of its `stderr` when nothing else explains a missing executable).
    pub fn read(&self, stdout: &str, stderr: &[u8]) -> Compiled {
        let dir_of: HashMap<PathBuf, &Lesson> = self
            .lessons
            .iter()
            .map(|l| (l.crate_dir(self.root, self.side), *l))
            .collect();
        let lesson_for = |manifest: &Option<PathBuf>| -> Option<&Lesson> {
            let dir = manifest.as_ref()?.parent()?;
            dir_of.get(dir).copied().or_else(|| {
                dir.canonicalize()
                    .ok()
                    .and_then(|d| dir_of.get(&d).copied())
            })
        };
        let mut seen = Collected::default();
        for line in stdout.lines() {
            let Ok(msg) = serde_json::from_str::<Message>(line) else {
                continue;
            };
            let lesson = lesson_for(&msg.manifest_path);
            match msg.reason.as_str() {
                "compiler-artifact" => self.artifact(&mut seen, msg, lesson),
                "compiler-message" => self.diagnostic(&mut seen, msg, lesson),
                _ => {}
            }
        }
        let mut errors = HashMap::new();
        let mut result = HashMap::new();
        for lesson in self.lessons {
            let built = self.outcome(&mut seen, lesson, stderr);
            // Only a lesson that failed on its own errors may be built again without them.
            if let (Built::Failed(err), Some(located)) = (&built, seen.located.remove(&lesson.id))
                && located.first().is_some_and(|first| first.text == *err)
            {
                errors.insert(lesson.id.clone(), located);
            }
            result.insert(lesson.id.clone(), built);
        }
        (result, seen.warnings, errors)
    }

    fn artifact(&self, seen: &mut Collected, msg: Message, lesson: Option<&Lesson>) {
        let Some(target) = msg.target.as_ref() else {
            return;
        };
        // A lesson's build script comes before its library, so its word is kept.
        if !self.side.is_solutions()
            && let Some(lesson) = lesson
            && let Some(why) = crate::build::outside_sources::differs(
                self.root,
                &lesson.dir,
                &target.kind,
                &msg.filenames,
            )
        {
            seen.outside.entry(lesson.id.clone()).or_insert(why);
        }
        if !target.kind.iter().any(|k| k == "test") {
            return;
        }
        if let (Some(exe), Some(lesson)) = (msg.executable, lesson) {
            let hidden = target.name == lesson.hidden_target();
            if hidden || target.name == lesson.check_target() {
                seen.binaries
                    .entry(lesson.id.clone())
                    .or_default()
                    .push(CheckBinary {
                        identity: identity(&exe),
                        exe,
                        hidden,
                    });
            }
        }
    }

    fn diagnostic(&self, seen: &mut Collected, msg: Message, lesson: Option<&Lesson>) {
        let Some(diag) = msg.message else { return };
        match diag.level.as_str() {
            "error" => {
                let mut text = trim_error(diag.rendered.as_deref().unwrap_or("error"), 12);
                // A submission sees only diagnostics located in its own files: an error
                // in a check (a hidden one, say) must not show the check's source.
                if self.sandboxed
                    && let Some(lesson) = lesson
                    && !in_student_files(&diag, lesson, self.root)
                {
                    text = if quotes_only_the_copy(&diag, self.root) {
                        format!(
                            "error: the checks do not compile against your code ({}): \
                             a function's name, arguments or return type differ from the \
                             handout's stub",
                            diag.message.lines().next().unwrap_or("")
                        )
                    } else {
                        format!(
                            "error: this lesson compiles a file from outside the course (by \
                             `include!` or `#[path]`), which no report shows\n  = help: keep \
                             your code in exercises/{}/src/",
                            lesson.dir
                        )
                    };
                }
                match lesson {
                    // "aborting due to 2 previous errors" is no error of its own.
                    Some(_) if diag.spans.is_empty() && diag.message.starts_with("aborting") => {}
                    Some(lesson) => {
                        let at = error_at(&diag, lesson, self.root);
                        let located = seen.located.entry(lesson.id.clone()).or_default();
                        located.push(CompileError {
                            at,
                            text: text.clone(),
                        });
                        seen.errors.entry(lesson.id.clone()).or_insert(text);
                    }
                    None => {
                        seen.first_dependency_error.get_or_insert(text);
                    }
                }
            }
            "warning" if !diag.spans.is_empty() || !is_summary(&diag.message) => {
                // A submission's warning about a file outside its own (`include!` of a secret
                // that compiles, an unused variable named by its text) is dropped.
                if let Some(lesson) = lesson
                    && (!self.sandboxed || in_student_files(&diag, lesson, self.root))
                {
                    let text = trim_error(diag.rendered.as_deref().unwrap_or(&diag.message), 12);
                    let list = seen.warnings.entry(lesson.id.clone()).or_default();
                    if !list.contains(&text) {
                        list.push(text);
                    }
                }
            }
            _ => {}
        }
    }

    /// What the build made of `lesson`, once every message is read.
    fn outcome(&self, seen: &mut Collected, lesson: &Lesson, stderr: &[u8]) -> Built {
        let mut bins = seen.binaries.remove(&lesson.id).unwrap_or_default();
        bins.sort_by_key(|b| b.hidden);
        bins.dedup_by(|a, b| a.hidden == b.hidden);
        let complete = bins.iter().any(|b| !b.hidden)
            && (!lesson.has_hidden() || bins.iter().any(|b| b.hidden));
        if let Some(why) = seen.outside.remove(&lesson.id) {
            return Built::Failed(why);
        } else if complete {
            return Built::Ok(bins);
        } else if let Some(err) = seen.errors.remove(&lesson.id) {
            return Built::Failed(err);
        } else if let Some(limit) = self.timed_out {
            return Built::Failed(timed_out_note(limit));
        }
        let why = seen.first_dependency_error.clone().unwrap_or_else(|| {
            let stderr = String::from_utf8_lossy(stderr);
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (cargo_home, _) = crate::build::cargo::toolchain_homes();
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

    /// Cargo's messages for lesson 2's reference solution with a type error in `split_heads`
    /// (inside `vec!`), one in `merge_heads` and one in a helper of the student's own (the
    /// workspace's path replaced by `/course`), and that source.
    const MESSAGES: &str = include_str!("../../tests/fixtures/compile_errors/messages.jsonl");
    const SOURCE: &str = include_str!("../../tests/fixtures/compile_errors/exercises.rs");

    #[test]
    fn the_compilers_errors_are_placed_in_the_exercises_they_are_in() {
        let course =
            crate::course::Course::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
                .unwrap();
        let lesson = course.find_lesson("lesson02").unwrap();
        let read = |stdout: &str| {
            let reader = Reader {
                root: Path::new("/course"),
                lessons: &[lesson],
                side: Side::Exercises,
                sandboxed: false,
                timed_out: None,
            };
            reader.read(stdout, b"")
        };
        let (built, _, errors) = read(MESSAGES);
        let Built::Failed(first) = &built["lesson02"] else {
            panic!("the lesson failed")
        };
        let errors = &errors["lesson02"];
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert_eq!(&errors[0].text, first);
        // The helper's error leaves the lesson a compile error as a whole.
        let broken = crate::build::stub_out::broken_exercises;
        assert_eq!(broken(lesson, errors, SOURCE), None);
        // Without it, each exercise has its own first error.
        let in_exercises: String = MESSAGES
            .lines()
            .filter(|line| !line.contains("\\\"three\\\""))
            .map(|line| format!("{line}\n"))
            .collect();
        let (_, _, errors) = read(&in_exercises);
        let broken = broken(lesson, &errors["lesson02"], SOURCE).unwrap();
        let names: Vec<&str> = broken.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["split_heads", "merge_heads"]);
        assert!(
            broken[0].error.contains("vec![\"one\", \"two\"]"),
            "{}",
            broken[0].error
        );
        assert!(
            broken[1].error.contains("let count: u32 = \"two\""),
            "{}",
            broken[1].error
        );
        assert!(
            broken
                .iter()
                .all(|b| b.error.starts_with("error[E0308]: mismatched types"))
        );
    }

    /// `include!` of a file outside the build copy (the course secret): the error and the
    /// warning its text gives are about that file, and neither the text nor its message reaches
    /// the report.
    #[test]
    fn nothing_a_file_outside_the_copy_holds_reaches_a_report() {
        let course = crate::course::fixture();
        let lesson = &course.lessons[0];
        let root = Path::new("/tmp/xtask-build-copy");
        let manifest = root.join("exercises").join(&lesson.dir).join("Cargo.toml");
        let own = format!("exercises/{}/src/exercises.rs", lesson.dir);
        let secret = "e782a7a4999f2413";
        let message = |level: &str, text: &str| {
            let included = serde_json::json!({
                "file_name": "/course/course-secret", "is_primary": true,
                "expansion": {"span": {"file_name": own, "is_primary": false}},
            });
            serde_json::json!({
                "reason": "compiler-message",
                "manifest_path": manifest,
                "message": {
                    "level": level, "message": text, "spans": [included],
                    "rendered": format!("{level}: {text}\n --> /course/course-secret\n{secret}"),
                },
            })
            .to_string()
        };
        let stdout = [
            message(
                "error",
                &format!("cannot find value `{secret}` in this scope"),
            ),
            message("warning", &format!("unused variable: `{secret}`")),
        ]
        .join("\n");
        let lessons = [lesson];
        let reader = |sandboxed| Reader {
            root,
            lessons: &lessons,
            side: Side::Exercises,
            sandboxed,
            timed_out: None,
        };
        let (built, warnings, _) = reader(true).read(&stdout, b"");
        let Some(Built::Failed(error)) = built.get(&lesson.id) else {
            panic!("{built:?}");
        };
        assert!(!error.contains(secret), "{error}");
        assert!(error.contains("from outside the course"), "{error}");
        assert!(
            warnings.get(&lesson.id).is_none_or(Vec::is_empty),
            "{warnings:?}"
        );
        // A local build is the student's own: both are shown as rustc wrote them.
        let (built, warnings, _) = reader(false).read(&stdout, b"");
        assert!(matches!(built.get(&lesson.id), Some(Built::Failed(e)) if e.contains(secret)));
        assert_eq!(warnings[&lesson.id].len(), 1);
    }

    #[test]
    fn warning_summaries_are_not_warnings() {
        assert!(super::is_summary("2 warnings emitted"));
        assert!(super::is_summary("1 warning emitted"));
        assert!(!super::is_summary("unused variable: `x`"));
    }
}
