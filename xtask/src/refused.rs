//! What student sources may not use: official grading refuses a lesson whose sources do (it is
//! not compiled at all), and local grading reports the same compile error, so that a local grade
//! is never better than the official one.

use crate::course::Lesson;
use std::path::Path;

/// What student sources may not use, and why: `unsafe` (a static constructor could run
/// before any check, raw memory could reach the grader's state), and the macros that read files
/// at compile time (the sandboxed build can read the hidden checks' sources, which a panic
/// message would then show in the report). Each is an identifier no other spelling reaches:
/// macros cannot build an identifier from parts, and `r#include_str!` is caught as
/// `include_str`.
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
];

/// The first construct of [`REFUSED`] that Rust source `text` uses outside comments and
/// literals, by Rust's own tokenizer (`proc_macro2`), named for the student. Text that does not
/// tokenize does not compile either, so it is left to the compiler.
pub fn construct(text: &str) -> Option<&'static str> {
    fn walk(tokens: proc_macro2::TokenStream) -> Option<&'static str> {
        tokens.into_iter().find_map(|t| match t {
            proc_macro2::TokenTree::Ident(i) => {
                let name = i.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name);
                REFUSED
                    .iter()
                    .find(|(ident, _)| *ident == name)
                    .map(|(_, what)| *what)
            }
            proc_macro2::TokenTree::Group(g) => walk(g.stream()),
            _ => None,
        })
    }
    walk(text.parse::<proc_macro2::TokenStream>().ok()?)
}

/// The compile error of a lesson whose file `rel` uses `what` (one of [`REFUSED`]'s).
pub fn message(rel: &str, what: &str) -> String {
    format!("{rel} uses {what}, which the course does not allow: remove it")
}

/// The first file of `lesson`'s sources in the course at `root` (`exercises/<dir>/src/**`, in
/// name order) that uses a construct of [`REFUSED`], as the compile error official grading gives.
pub fn in_lesson(root: &Path, lesson: &Lesson) -> Option<String> {
    let src = lesson.crate_dir(root, false).join("src");
    let rels =
        crate::fsutil::files_under(&src, &src, &|rel, _| crate::fsutil::is_scratch_file(rel));
    rels.iter().find_map(|rel| {
        let text = std::fs::read(src.join(rel)).ok()?;
        let what = construct(&String::from_utf8_lossy(&text))?;
        let rel = format!("exercises/{}/src/{rel}", lesson.dir);
        Some(format!(
            "error: {}\n  (official grading refuses the lesson for it: it would not be compiled)",
            message(&rel, what)
        ))
    })
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
        assert_eq!(construct("fn f() -> u8 { 1 }"), None);
        assert_eq!(construct("fn f( {"), None);
    }
}
