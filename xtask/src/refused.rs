//! What student sources may not use: official grading refuses a lesson whose sources do (it is
//! not compiled at all), and local grading reports the same compile error, so that a local grade
//! is never better than the official one.

use crate::course::Lesson;
use std::path::Path;

/// What student sources may not use, and why: `unsafe` (a static constructor could run
/// before any check, raw memory could reach the grader's state), the macros that read files
/// at compile time (the sandboxed build can read the hidden checks' sources, which a panic
/// message would then show in the report), and the lint that stops a constant's evaluation after
/// a while (allowed, a constant that never ends keeps `rustc` going until the build's time limit,
/// and in a class run every later submission waits that long). Each is an identifier no other
/// spelling reaches: macros cannot build an identifier from parts, and `r#include_str!` is
/// caught as `include_str`.
const REFUSED: &[(&str, &str)] = &[
    ("unsafe", "`unsafe`"),
    ("unsafe_code", "`unsafe`"),
    (
        "include_str",
        "`include_str!` (it reads files at compile time)",
    ),
    (
        "include_bytes",
        "`include_bytes!` (it reads files at compile time)",
    ),
    (
        "long_running_const_eval",
        "the lint `long_running_const_eval` (turning it off lets a constant keep the compiler \
         busy without end)",
    ),
];

/// The first construct of [`REFUSED`] that Rust source `text` uses outside comments and
/// literals ([`crate::tokens::first_ident`]), named for the student. Text that does not tokenize
/// does not compile either, so it is left to the compiler.
pub fn construct(text: &str) -> Option<&'static str> {
    crate::tokens::first_ident(text, &idents()).map(|i| REFUSED[i].1)
}

/// The identifiers of [`REFUSED`], in its order.
fn idents() -> Vec<&'static str> {
    REFUSED.iter().map(|(ident, _)| *ident).collect()
}

/// The compile error of a lesson whose file `rel` uses `what` (one of [`REFUSED`]'s).
pub fn message(rel: &str, what: &str) -> String {
    format!("{rel} uses {what}, which the course does not allow: remove it")
}

/// The first file of `lesson`'s sources in the course at `root` (`exercises/<dir>/src/**`, in
/// name order) that uses a construct of [`REFUSED`], as the compile error official grading gives.
pub fn in_lesson(root: &Path, lesson: &Lesson) -> Option<String> {
    let src = lesson.crate_dir(root, false).join("src");
    let (rel, i) = crate::tokens::first_in_files(&src, &idents())?;
    let what = REFUSED[i].1;
    let rel = format!("exercises/{}/src/{rel}", lesson.dir);
    Some(format!(
        "error: {}\n  (official grading refuses the lesson for it: it would not be compiled)",
        message(&rel, what)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_constructs_are_found_outside_comments_and_strings() {
        let mentions_unsafe = |text: &str| construct(text) == Some("`unsafe`");
        assert!(mentions_unsafe("fn f() { unsafe { g() } }"));
        assert!(mentions_unsafe("#![allow(unsafe_code)]"));
        assert!(!mentions_unsafe(
            "// unsafe\nfn f() -> &'static str { \"unsafe\" }"
        ));
        assert!(!mentions_unsafe(
            "/* unsafe /* nested */ */ fn unsafety() {}"
        ));
        assert!(mentions_unsafe(
            "let s = r#\"\\\"#; unsafe { x() }; let t = \"\";"
        ));
        assert!(mentions_unsafe(
            "let c = '\"'; unsafe { x() } let d = '\"';"
        ));
        assert!(!mentions_unsafe("let s = r#\"unsafe \" unsafe\"#;"));
        // Reading files at compile time, however it is spelled.
        let reads = |text: &str| construct(text).is_some_and(|w| w.contains("reads files"));
        assert!(reads("const S: &str = include_str!(\"../x.rs\");"));
        assert!(reads("const S: &str = core::r#include_str!(\"../x.rs\");"));
        assert!(reads("#[doc = include_bytes!(\"x\")] fn f() {}"));
        assert!(reads(
            "macro_rules! m { ($n:ident) => { $n!(\"x\") } } const S: &str = m!(include_str);"
        ));
        assert!(!reads(
            "// include_str!(\"x\")\nfn include_strs() -> &'static str { \"include_str!\" }"
        ));
        // Turning off the lint that ends a constant's evaluation, however it is written.
        let spins = |text: &str| construct(text).is_some_and(|w| w.contains("without end"));
        assert!(spins("#[allow(long_running_const_eval)] const X: u8 = 1;"));
        assert!(spins("#![allow(unused, long_running_const_eval)]"));
        assert!(spins(
            "#[expect(r#long_running_const_eval)] const X: u8 = 1;"
        ));
        assert!(!spins("// long_running_const_eval\nconst X: u8 = 1;"));
        assert_eq!(construct("fn f() -> u8 { 1 }"), None);
        assert_eq!(construct("fn f( {"), None);
    }
}
