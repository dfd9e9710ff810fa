//! `cargo xtask reset EXERCISE|LESSON [--yes]`: puts one exercise's function ([`replace_fn`]), or
//! a whole lesson's `src/exercises.rs`, back to the stub handed out: the handout's [`STUB_DIR`]
//! copy, else `git show HEAD:` in the instructors' tree (not embedded with `include_str!`: a
//! handout builds xtask from the student's own files). The student's file is first backed up
//! under `target/xtask/backups/`, outside the course tree.

use crate::course::suggest::{Kind, unknown};
use crate::course::{Course, Lesson};
use crate::fsutil::relative;
use anyhow::{Context as _, Result, anyhow, bail};
use proc_macro2::{LineColumn, TokenStream};
use std::io::{BufRead, IsTerminal, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The folder, inside each exercise crate of a handout, that holds the pristine stubs.
pub const STUB_DIR: &str = ".stubs";
/// The file students edit, in `src/`, and its pristine copy's name in [`STUB_DIR`].
pub const EXERCISE_FILE: &str = "exercises.rs";

/// `exercises/<dir>/.stubs/exercises.rs` under `root`.
pub fn stub_path(root: &Path, lesson: &Lesson) -> PathBuf {
    lesson
        .crate_dir(root, crate::course::Side::Exercises)
        .join(STUB_DIR)
        .join(EXERCISE_FILE)
}

/// `exercises/<dir>/src/exercises.rs` under `root`.
pub fn exercise_path(root: &Path, lesson: &Lesson) -> PathBuf {
    lesson
        .crate_dir(root, crate::course::Side::Exercises)
        .join("src")
        .join(EXERCISE_FILE)
}

/// The handed-out stub of a lesson's exercise file, and where it was read from.
fn pristine(root: &Path, lesson: &Lesson) -> Result<(String, String)> {
    let shipped = stub_path(root, lesson);
    if shipped.is_file() {
        let text = std::fs::read_to_string(&shipped)
            .with_context(|| format!("cannot read {}", shipped.display()))?;
        return Ok((text, relative(root, &shipped)));
    }
    let rel = relative(root, &exercise_path(root, lesson));
    if root.join(".git").exists() {
        let out = std::process::Command::new("git")
            .current_dir(root)
            .args(["show", &format!("HEAD:{rel}")])
            .output();
        if let Ok(out) = out
            && out.status.success()
        {
            let text =
                String::from_utf8(out.stdout).map_err(|_| anyhow!("{rel} at HEAD is not UTF-8"))?;
            return Ok((text, format!("{rel} at git HEAD")));
        }
    }
    Err(anyhow!(
        "no pristine copy of {rel}: a handout made by `cargo xtask dist` keeps one in {}, and \
         this folder has neither that file nor a git history",
        relative(root, &shipped)
    ))
}

/// The handed-out stub of `lesson`'s exercise file in the course at `root` (see [`run`]).
pub fn handed_out(root: &Path, lesson: &Lesson) -> Result<String> {
    Ok(pristine(root, lesson)?.0)
}

/// Byte offset in `text` of the place the compiler names by `line` (from 1) and `column` (from
/// 1, in characters): it drops a byte-order mark before counting, as `syn` does.
pub fn byte_at(text: &str, line: usize, column: usize) -> usize {
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let column = column.saturating_sub(1);
    bom + offset(&text[bom..], LineColumn { line, column })
}

/// Byte offset of a `syn` line/column (line from 1, column in characters from 0) in `text`.
fn offset(text: &str, at: LineColumn) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(at.line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line = &text[line_start..];
    line_start
        + line
            .char_indices()
            .nth(at.column)
            .map_or(line.len(), |(i, _)| i)
}

/// Collects the token streams of every `fn` named `name`.
struct FindFn<'a> {
    name: &'a str,
    found: Vec<TokenStream>,
}

impl<'ast> Visit<'ast> for FindFn<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if f.sig.ident == self.name {
            self.found.push(quote_tokens(f));
        }
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if f.sig.ident == self.name {
            self.found.push(quote_tokens(f));
        }
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if f.sig.ident == self.name {
            self.found.push(quote_tokens(f));
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn quote_tokens(item: &impl quote::ToTokens) -> TokenStream {
    item.to_token_stream()
}

/// A file a parser would have to recurse into deeper than
/// [`crate::course::tokens::MAX_PARSE_DEPTH`] (how deep).
#[derive(Debug)]
struct TooDeep(usize);

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "code nests {} levels deep (brackets, operators, generic arguments), and this command \
             reads up to {}",
            self.0,
            crate::course::tokens::MAX_PARSE_DEPTH
        )
    }
}

impl std::error::Error for TooDeep {}

/// The byte range of the `fn name` item in `text` (attributes and doc comments included), `None`
/// when there is no such function. Errors when `text` does not parse as Rust, nests deeper than
/// [`crate::course::tokens::MAX_PARSE_DEPTH`], or when several functions have that name.
pub fn fn_range(text: &str, name: &str) -> Result<Option<Range<usize>>> {
    use crate::course::tokens;
    // `syn::parse_file` skips a byte-order mark; the spans then start after it.
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, text),
    };
    // `syn` parses by recursion: a file nested far deeper than any lesson (200,000 parentheses,
    // or as many `!` before a name) would overflow the stack and abort the command.
    if let Some(depth) = tokens::parse_depth(body)
        && depth > tokens::MAX_PARSE_DEPTH
    {
        return Err(TooDeep(depth).into());
    }
    let range = tokens::on_parser_stack(|| find_fn(body, name))
        .context("the parser stopped without an answer")??;
    Ok(range.map(|r| bom + r.start..bom + r.end))
}

/// [`fn_range`] in `body` (no byte-order mark), on the parser's stack.
fn find_fn(body: &str, name: &str) -> Result<Option<Range<usize>>> {
    let file = syn::parse_file(body).map_err(|e| {
        let at = e.span().start();
        anyhow::Error::new(e).context(format!("line {}, column {}", at.line, at.column + 1))
    })?;
    let mut finder = FindFn {
        name,
        found: Vec::new(),
    };
    finder.visit_file(&file);
    match finder.found.as_slice() {
        [] => Ok(None),
        [tokens] => {
            let mut iter = tokens.clone().into_iter();
            let first = iter.next().context("an empty function")?;
            let last = iter.last().unwrap_or_else(|| first.clone());
            Ok(Some(
                offset(body, first.span().start())..offset(body, last.span().end()),
            ))
        }
        more => Err(anyhow!("{} functions are named `{name}`", more.len())),
    }
}

/// `text` with the function `name` replaced by the one in `stub` (appended at the end when
/// `text` has no such function). Returns the new text and whether the function was appended.
pub fn replace_fn(text: &str, stub: &str, name: &str) -> Result<(String, bool)> {
    let stub_range = fn_range(stub, name)
        .map_err(|e| anyhow!("the handed-out stub does not parse ({e:#})"))?
        .with_context(|| format!("the handed-out stub has no `fn {name}`"))?;
    let stub_item = &stub[stub_range];
    let range = fn_range(text, name).map_err(|e| match e.downcast_ref::<TooDeep>() {
        Some(deep) => anyhow!("your file's {deep}; fix it, or reset the whole lesson"),
        None => {
            anyhow!("your file does not parse as Rust ({e:#}); fix it, or reset the whole lesson")
        }
    })?;
    Ok(match range {
        Some(r) => (
            format!("{}{stub_item}{}", &text[..r.start], &text[r.end..]),
            false,
        ),
        None => {
            let sep = if text.ends_with('\n') { "\n" } else { "\n\n" };
            (format!("{text}{sep}{stub_item}\n"), true)
        }
    })
}

/// `YYYYMMDD-HHMMSS` in UTC for `secs` since the Unix epoch.
pub(crate) fn utc_stamp(secs: u64) -> String {
    let [year, month, day, h, m, s] = utc_civil(secs as i64);
    format!("{year:04}{month:02}{day:02}-{h:02}{m:02}{s:02}")
}

/// Year, month, day, hour, minute and second in UTC of `secs` since the Unix epoch (before it
/// too), by Howard Hinnant's days-to-civil algorithm.
pub(crate) fn utc_civil(secs: i64) -> [i64; 6] {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    [year, month, day, rem / 3600, rem % 3600 / 60, rem % 60]
}

/// A fresh backup path for the lesson's file: `target/xtask/backups/<dir>/exercises.rs.bak-<stamp>`.
fn backup_path(root: &Path, lesson: &Lesson) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let dir = root
        .join("target")
        .join("xtask")
        .join("backups")
        .join(&lesson.dir);
    let base = format!("{EXERCISE_FILE}.bak-{}", utc_stamp(secs));
    let mut path = dir.join(&base);
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{base}-{n}"));
        n += 1;
    }
    path
}

/// Asks on the terminal; refuses without one.
pub(crate) fn confirm(question: &str) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!(
            "not overwriting without confirmation: no terminal to ask on; pass --yes to reset anyway"
        );
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("cannot read the answer")?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
}

/// Runs `reset`: `what` is an exercise (function) name or a lesson (`lesson01`, `1`, its
/// directory). Returns the exit code: 0 when reset (or already the stub), 1 when declined.
pub fn run(root: &Path, course: &Course, what: &str, yes: bool) -> Result<u8> {
    let (lesson, function) = if let Some((lesson, ex)) = course.find_exercise(what) {
        (lesson, Some(ex.name.as_str()))
    } else if let Some(lesson) = course.find_lesson(what) {
        (lesson, None)
    } else {
        bail!(unknown(course, Kind::LessonOrExercise, what));
    };
    let path = exercise_path(root, lesson);
    let rel = relative(root, &path);
    let (stub, source) = pristine(root, lesson)?;
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    let (new_text, what_label, appended) = match function {
        Some(name) => {
            let (text, appended) = replace_fn(&current, &stub, name)?;
            (text, format!("`{name}`"), appended)
        }
        None => (stub.clone(), format!("all of {}", lesson.id), false),
    };
    if new_text == current {
        println!("{what_label} in {rel} is already the handed-out stub; nothing changed.");
        return Ok(0);
    }
    let backup = backup_path(root, lesson);
    let backup_rel = relative(root, &backup);
    if !yes {
        let question = format!(
            "Reset {what_label} in {rel} to the handed-out stub? Your current file is kept as {backup_rel}."
        );
        if !confirm(&question)? {
            println!("Nothing changed.");
            return Ok(1);
        }
    }
    if path.is_file() {
        if let Some(dir) = backup.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::copy(&path, &backup)
            .with_context(|| format!("cannot back up {rel} to {backup_rel}"))?;
    }
    std::fs::write(&path, &new_text).with_context(|| format!("cannot write {rel}"))?;
    if appended {
        println!(
            "{what_label} was missing from {rel}: the stub's version was added at the end of the file."
        );
    }
    println!("Reset {what_label} in {rel} to the handed-out stub (from {source}).");
    if path.is_file() && !current.is_empty() {
        println!("Your previous version: {backup_rel}");
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_around_the_epoch_and_a_leap_day() {
        assert_eq!(utc_civil(0), [1970, 1, 1, 0, 0, 0]);
        assert_eq!(utc_civil(-1), [1969, 12, 31, 23, 59, 59]);
        assert_eq!(utc_civil(951_782_400), [2000, 2, 29, 0, 0, 0]);
        assert_eq!(utc_stamp(1_796_947_199), "20261210-235959");
    }

    const STUB: &str = "//! Stubs.\nuse x::Y;\n\n/// Adds.\n///\n/// `a + b` — with a non-ASCII dash.\npub fn add(a: u32, b: u32) -> u32 {\n    todo!(\"add\")\n}\n\n/// Doubles.\npub fn double(a: u32) -> u32 {\n    todo!()\n}\n";

    #[test]
    fn one_function_is_replaced_and_the_rest_kept_byte_for_byte() {
        let mine = STUB
            .replace("todo!(\"add\")", "a + b // mine ✓")
            .replace("    todo!()\n", "    2 * a // also mine\n")
            .replace("use x::Y;", "use x::Y; // my note");
        let (out, appended) = replace_fn(&mine, STUB, "add").unwrap();
        assert!(!appended);
        assert!(out.contains("todo!(\"add\")"), "{out}");
        assert!(!out.contains("// mine ✓"));
        assert!(out.contains("2 * a // also mine"));
        assert!(out.contains("use x::Y; // my note"));
        let (out, _) = replace_fn(&out, STUB, "double").unwrap();
        assert_eq!(out, STUB.replace("use x::Y;", "use x::Y; // my note"));
    }

    #[test]
    fn the_range_spans_docs_to_closing_brace() {
        let r = fn_range(STUB, "double").unwrap().unwrap();
        assert_eq!(
            &STUB[r],
            "/// Doubles.\npub fn double(a: u32) -> u32 {\n    todo!()\n}"
        );
        assert_eq!(fn_range(STUB, "missing").unwrap(), None);
        let in_impl = "struct S;\nimpl S {\n    fn add(&self) {}\n}\n";
        assert_eq!(
            &in_impl[fn_range(in_impl, "add").unwrap().unwrap()],
            "fn add(&self) {}"
        );
    }

    #[test]
    fn a_missing_function_is_appended_and_broken_files_are_refused() {
        let (out, appended) = replace_fn("//! Mine.\n", STUB, "add").unwrap();
        assert!(appended);
        assert!(out.starts_with("//! Mine.\n\n/// Adds."));
        let err = format!(
            "{:#}",
            replace_fn("pub fn add( {", STUB, "add").unwrap_err()
        );
        assert!(err.contains("does not parse"), "{err}");
        assert!(
            replace_fn(STUB, STUB, "nope")
                .unwrap_err()
                .to_string()
                .contains("no `fn nope`")
        );
    }

    #[test]
    fn deep_nesting_is_refused_before_it_can_overflow_the_stack() {
        use crate::course::tokens::{MAX_PARSE_DEPTH, parse_depth};
        // `!` before a name: one level each (`rustc` compiles any number).
        let nested = |n: usize| {
            format!(
                "{STUB}\npub fn deep(x: bool) -> bool {{\n    {}x\n}}\n",
                "!".repeat(n)
            )
        };
        let fits = |n: usize| parse_depth(&nested(n)).unwrap() <= MAX_PARSE_DEPTH;
        let at_limit = (1..MAX_PARSE_DEPTH)
            .collect::<Vec<_>>()
            .partition_point(|&n| fits(n));
        // Parsed at the limit, called from a test thread's 2 MiB stack.
        let text = nested(at_limit);
        let (out, appended) = replace_fn(&text, STUB, "add").unwrap();
        assert!(!appended);
        assert!(out.ends_with(&text[text.find("\npub fn deep").unwrap()..]));
        // Refused past it, however deep, with the depth named.
        for n in [at_limit + 1, 200_000] {
            let err = format!("{:#}", replace_fn(&nested(n), STUB, "add").unwrap_err());
            let depth: usize = err
                .strip_prefix("your file's code nests ")
                .and_then(|e| e.split(' ').next())
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("{err}"));
            assert!(depth > MAX_PARSE_DEPTH && depth >= n, "{err}");
            assert!(err.contains("reset the whole lesson"), "{err}");
        }
    }

    #[test]
    fn stamps_are_utc_calendar_times() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(utc_stamp(951_782_400 + 3_723), "20000229-010203");
        assert_eq!(utc_stamp(1_798_761_599), "20261231-235959");
    }
}
