//! Identifiers in Rust source, found by Rust's own tokenizer (`proc_macro2`): what the grader
//! looks for in student sources ([`crate::refused`], [`crate::stateful`]) without mistaking a
//! comment, a string or a lifetime for code; and how deep its brackets nest ([`crate::reset`]).

use proc_macro2::TokenTree;
use std::path::Path;

/// Every token of Rust source `text` with the number of groups (`()`, `[]`, `{}`) around it, a
/// group before what it holds; `None` when the text does not tokenize (it does not compile
/// either). Groups are walked with a stack of their own, not by recursion: a file of a million
/// nested brackets tokenizes, and must not overflow the grader's stack.
fn walk(text: &str) -> Option<impl Iterator<Item = (TokenTree, usize)>> {
    let tokens = text.parse::<proc_macro2::TokenStream>().ok()?;
    let mut open = vec![tokens.into_iter()];
    Some(std::iter::from_fn(move || {
        loop {
            let depth = open.len().checked_sub(1)?;
            match open.last_mut()?.next() {
                Some(token) => {
                    if let TokenTree::Group(g) = &token {
                        open.push(g.stream().into_iter());
                    }
                    return Some((token, depth));
                }
                None => {
                    open.pop();
                }
            }
        }
    }))
}

/// Where in `names` is the first of them that Rust source `text` uses as an identifier, however
/// deep in a block or a macro's body, and not in a comment, a literal or a lifetime (`'static`
/// is no `static`). A raw identifier counts as its name (`r#include_str` as `include_str`).
/// Text that does not tokenize gives `None`: it does not compile either.
pub fn first_ident(text: &str, names: &[&str]) -> Option<usize> {
    // An identifier's text is in the source: most files need no tokenizing at all.
    if !names.iter().any(|n| text.contains(n)) {
        return None;
    }
    // A lifetime is a joint `'` followed by its name, in the same group.
    let (mut after_quote, mut level) = (false, 0);
    for (token, depth) in walk(text)? {
        if depth != level {
            (after_quote, level) = (false, depth);
        }
        if let TokenTree::Ident(i) = &token
            && !after_quote
        {
            let name = i.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name);
            if let Some(found) = names.iter().position(|n| *n == name) {
                return Some(found);
            }
        }
        after_quote = matches!(&token, TokenTree::Punct(p)
            if p.as_char() == '\'' && p.spacing() == proc_macro2::Spacing::Joint);
    }
    None
}

/// How deep the brackets (`()`, `[]`, `{}`) of Rust source `text` nest at most, by Rust's
/// tokenizer (brackets in comments and literals do not count): 0 for none. Text that does not
/// tokenize gives `None`.
pub fn max_depth(text: &str) -> Option<usize> {
    let deepest = walk(text)?
        .map(|(token, depth)| depth + usize::from(matches!(token, TokenTree::Group(_))))
        .max();
    Some(deepest.unwrap_or(0))
}

/// The first file under `src` (in name order, as a path relative to it) that uses one of `names`
/// ([`first_ident`]), and where that one is in `names`. insta's scratch files are skipped.
pub fn first_in_files(src: &Path, names: &[&str]) -> Option<(String, usize)> {
    let rels = crate::fsutil::files_under(src, src, &|rel, _| crate::fsutil::is_scratch_file(rel));
    rels.into_iter().find_map(|rel| {
        let text = std::fs::read(src.join(&rel)).ok()?;
        let found = first_ident(&String::from_utf8_lossy(&text), names)?;
        Some((rel, found))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_found_in_code_only() {
        let names = ["static", "unsafe"];
        let found = |text: &str| first_ident(text, &names).map(|i| names[i]);
        assert_eq!(found("static N: u8 = 1;"), Some("static"));
        assert_eq!(
            found("fn f() { { let x = || unsafe { g() }; } }"),
            Some("unsafe")
        );
        assert_eq!(
            found("macro_rules! m { () => { static X: u8 = 0; } }"),
            Some("static")
        );
        assert_eq!(
            found("fn f() -> &'static str { \"static\" } // static"),
            None
        );
        assert_eq!(
            found("fn f<'a>(x: &'a u8) -> &'static u8 { x } static Y: u8 = 2;"),
            Some("static")
        );
        assert_eq!(found("/* unsafe /* nested */ */ fn unsafety() {}"), None);
        assert_eq!(
            found("let s = r#\"static\"#; let c = '\\''; static Z: u8 = 3;"),
            Some("static")
        );
        assert_eq!(found("fn r#unsafe() {}"), Some("unsafe"));
        // Deeper than any stack would allow by recursion (the test runs on a 2 MiB thread).
        let deep = |inner: &str| {
            format!(
                "fn f() {{ {}{inner}{} }}",
                "(".repeat(200_000),
                ")".repeat(200_000)
            )
        };
        assert_eq!(found(&deep("unsafe_x")), None);
        assert_eq!(found(&deep("unsafe")), Some("unsafe"));
        assert_eq!(
            found(&format!("{} static S: u8 = 0;", deep("'static"))),
            Some("static")
        );
        assert_eq!(found("fn f( {"), None);
    }

    #[test]
    fn nesting_depth_counts_brackets_in_code_only() {
        assert_eq!(max_depth("const N: u8 = 1;"), Some(0));
        assert_eq!(max_depth("fn f() { g([1, (2)]) }"), Some(4));
        assert_eq!(max_depth("fn f() {} fn g() { {} }"), Some(2));
        assert_eq!(
            max_depth("fn f() { \"((((\" } // [[[[\n/* {{{{ */"),
            Some(1)
        );
        assert_eq!(max_depth("fn f( {"), None);
        // Deeper than any stack would allow by recursion (the test runs on a 2 MiB thread).
        let deep = format!(
            "fn f() {{ {}1{} }}",
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        assert_eq!(max_depth(&deep), Some(200_001));
    }

    #[test]
    fn the_first_file_in_name_order_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path();
        std::fs::create_dir_all(src.join("b")).unwrap();
        std::fs::write(src.join("a.rs"), "fn f() -> &'static str { \"\" }").unwrap();
        std::fs::write(src.join("b/c.rs"), "static C: u8 = 0;").unwrap();
        std::fs::write(src.join("d.rs"), "unsafe fn d() {}").unwrap();
        std::fs::write(src.join("a.rs.snap.new"), "static S: u8 = 0;").unwrap();
        assert_eq!(
            first_in_files(src, &["unsafe", "static"]),
            Some(("b/c.rs".to_owned(), 1))
        );
        assert_eq!(
            first_in_files(src, &["unsafe"]),
            Some(("d.rs".to_owned(), 0))
        );
        assert_eq!(first_in_files(src, &["thread_local"]), None);
    }
}
