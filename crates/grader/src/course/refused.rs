//! What student sources may not use: official grading refuses a lesson whose sources do (it is
//! not compiled at all), and local grading reports the same compile error, so that a local grade
//! is never better than the official one.

use crate::course::Lesson;
use crate::course::tokens::Use;
use std::path::Path;

/// What student sources may not use, and why: `unsafe` and the lint it trips (a static
/// constructor could run before any check, raw memory could reach the grader's state), inline
/// assembly (`global_asm!` needs no `unsafe` block), whatever reads files at compile time (the
/// sandboxed build can read the hidden checks' sources, which a panic message would then show in
/// the report; `debugger_visualizer` embeds a file in the executable, which the check can read),
/// and the lint that stops a constant's evaluation after a while (allowed, a constant that never
/// ends keeps `rustc` going until the build's time limit, and in a class run every later
/// submission waits that long). Each is an identifier no other spelling reaches: macros cannot
/// build an identifier from parts, a path (`core::include_str!`) or a `use … as` still names it,
/// and `r#include_str!` is caught as `include_str`.
///
/// `unsafe_code` stays `deny` in the workspace's lints rather than `forbid`: ndarray's `s!`
/// expands to `#[allow(unsafe_code)]`, which `forbid` turns into an error in every lesson that
/// slices. The scan refuses every spelling that could lift it, and cannot be skipped (see
/// [`crate::course::tokens::first_ident`]).
const REFUSED: &[(&str, &str)] = &[
    ("unsafe", "`unsafe`"),
    ("unsafe_code", "`unsafe`"),
    ("global_asm", "inline assembly (`global_asm!`)"),
    ("asm", "inline assembly (`asm!`)"),
    ("naked_asm", "inline assembly (`naked_asm!`)"),
    (
        "include_str",
        "`include_str!` (it reads files at compile time)",
    ),
    (
        "include_bytes",
        "`include_bytes!` (it reads files at compile time)",
    ),
    (
        "debugger_visualizer",
        "`debugger_visualizer` (it copies a file into the program at compile time)",
    ),
    (
        "long_running_const_eval",
        "the lint `long_running_const_eval` (turning it off lets a constant keep the compiler \
         busy without end)",
    ),
];

/// Why the contents `bytes` of a student source file are refused, if they are: the first
/// construct of [`REFUSED`] it uses outside comments and literals, or that it holds one of their
/// names and cannot be read as Rust source (then the grader cannot tell where the name is, so the
/// file counts as using it), named for the student.
pub fn construct(bytes: &[u8]) -> Option<String> {
    crate::course::tokens::in_bytes(bytes, &idents()).map(describe)
}

/// The student's words for what a scan found.
fn describe(found: Use) -> String {
    match found {
        Use::Uses(i) => REFUSED[i].1.to_owned(),
        Use::Unreadable(why) => format!(
            "text the course does not allow (`unsafe`, `include_str!`, ...) in a file that {why}: \
             the grader must read every file it checks"
        ),
    }
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
/// name order) that [`construct`] refuses, as the compile error official grading gives.
pub fn in_lesson(root: &Path, lesson: &Lesson) -> Option<String> {
    let src = lesson
        .crate_dir(root, crate::course::Side::Exercises)
        .join("src");
    let (rel, found) = crate::course::tokens::first_in_files(&src, &idents())?;
    let rel = format!("exercises/{}/src/{rel}", lesson.dir);
    Some(format!(
        "error: {}\n  (official grading refuses the lesson for it: it would not be compiled)",
        message(&rel, &describe(found))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spellings of refused constructs, each with the identifier it must be refused for. Every
    /// one is real: `rustc` compiles it (below), as a shebang line, a byte order mark and `\r\n`
    /// line ends are no obstacle to it.
    const SPELLINGS: &[(&str, &str)] = &[
        (
            "#!/ )\npub fn f() -> u8 { unsafe { *(&1u8 as *const u8) } }",
            "unsafe",
        ),
        (
            "\u{feff}#!/ )\n#![allow(unsafe_code)]\npub fn f() {}",
            "unsafe_code",
        ),
        (
            "#!/ )\r\n#![allow(unsafe_code)]\r\npub fn f() {}",
            "unsafe_code",
        ),
        (
            "#!/usr/bin/env x\nconst S: &str = include_str!(\"data.txt\");",
            "include_str",
        ),
        (
            "#! /* a comment */ [allow(unsafe_code)]\npub fn f() {}",
            "unsafe_code",
        ),
        (
            "#!// a comment\n[allow(unsafe_code)]\npub fn f() {}",
            "unsafe_code",
        ),
        (
            "#![cfg_attr(all(), allow(unsafe_code))]\npub fn f() {}",
            "unsafe_code",
        ),
        ("#[expect(unsafe_code)]\npub fn f() {}", "unsafe_code"),
        (
            "pub fn f() -> u8 { unsafe { *(&1u8 as *const u8) } }",
            "unsafe",
        ),
        ("#[unsafe(no_mangle)]\npub extern \"C\" fn g() {}", "unsafe"),
        (
            "const S: &str = core::include_str!(\"data.txt\");",
            "include_str",
        ),
        (
            "const S: &str = ::std::include_str!(\"data.txt\");",
            "include_str",
        ),
        (
            "const S: &str = core::r#include_str!(\"data.txt\");",
            "include_str",
        ),
        (
            "use core::include_str as read;\nconst S: &str = read!(\"data.txt\");",
            "include_str",
        ),
        (
            "macro_rules! m { ($n:ident) => { $n!(\"data.txt\") } }\nconst S: &str = m!(include_str);",
            "include_str",
        ),
        (
            "#[doc = include_str!(\"data.txt\")]\npub fn d() {}",
            "include_str",
        ),
        (
            "const B: &[u8] = include_bytes!(\"data.txt\");",
            "include_bytes",
        ),
        (
            "#![debugger_visualizer(gdb_script_file = \"data.txt\")]\npub fn f() {}",
            "debugger_visualizer",
        ),
        (
            "core::arch::global_asm!(\"\");\npub fn f() {}",
            "global_asm",
        ),
        (
            "#[allow(long_running_const_eval)]\nconst X: u8 = 1;",
            "long_running_const_eval",
        ),
        (
            "#![allow(unused, r#long_running_const_eval)]\npub fn f() {}",
            "long_running_const_eval",
        ),
    ];

    /// `text` with the identifier `ident` (as a whole word) renamed: the same file without the
    /// construct.
    fn without(text: &str, ident: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find(ident) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + ident.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            out.push_str(&rest[..at]);
            out.push_str(if word(before) || word(after) {
                ident
            } else {
                "renamed"
            });
            rest = &rest[at + ident.len()..];
        }
        out + rest
    }

    #[test]
    fn every_spelling_rustc_compiles_is_refused_for_its_construct() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.txt"), "secret").unwrap();
        for (i, (text, ident)) in SPELLINGS.iter().enumerate() {
            let file = dir.path().join(format!("s{i}.rs"));
            std::fs::write(&file, text).unwrap();
            let out = std::process::Command::new("rustc")
                .args([
                    "--edition",
                    "2024",
                    "--crate-type",
                    "lib",
                    "--emit",
                    "metadata",
                ])
                .args(["-A", "warnings", "--out-dir"])
                .arg(dir.path())
                .arg(&file)
                .output()
                .expect("rustc runs");
            assert!(
                out.status.success(),
                "rustc does not compile spelling {i} ({text:?}), so it proves nothing:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let expected = REFUSED.iter().find(|(id, _)| id == ident).unwrap().1;
            assert_eq!(
                construct(text.as_bytes()).as_deref(),
                Some(expected),
                "spelling {i}: {text:?}"
            );
            // The mutation: the same file without the construct passes the scan, so the refusal
            // above is for the construct, not for a file the scan could not read.
            let renamed = without(text, ident);
            assert_ne!(&renamed, text);
            assert_eq!(construct(renamed.as_bytes()), None, "{renamed:?}");
        }
    }

    #[test]
    fn refused_constructs_are_found_outside_comments_and_strings() {
        let refused = |text: &str| construct(text.as_bytes());
        let mentions_unsafe = |text: &str| refused(text).as_deref() == Some("`unsafe`");
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
        assert!(
            refused(
                "// include_str!(\"x\")\nfn include_strs() -> &'static str { \"include_str!\" }"
            )
            .is_none()
        );
        assert!(refused("// long_running_const_eval\nconst X: u8 = 1;").is_none());
        assert_eq!(refused("fn f() -> u8 { 1 }"), None);
        // A file that does not tokenize is refused when it holds a refused name (the grader
        // cannot tell where the name is) and left to the compiler otherwise.
        let unreadable = refused("fn f( { unsafe }").unwrap();
        assert!(
            unreadable.contains("does not read as Rust source (line 1"),
            "{unreadable}"
        );
        assert_eq!(refused("fn f( {"), None);
        assert!(construct(b"\xff\xfe unsafe {").is_some());
        assert_eq!(construct(b"\xff\xfe fn f() {}"), None);
    }
}
