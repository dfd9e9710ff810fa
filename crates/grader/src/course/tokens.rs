//! Identifiers in Rust source, found by Rust's own tokenizer (`proc_macro2`): what the grader
//! looks for in student sources ([`crate::course::refused`], [`crate::run::stateful`]) without
//! mistaking a comment, a string or a lifetime for code; and how deep a parser must recurse to
//! read it ([`parse_depth`]: `syn`, in [`crate::course::stubs`] and the similarity pass).

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

/// Rust source as `rustc` reads it: a leading byte order mark dropped, `\r\n` read as `\n`,
/// and a first line that `rustc` takes for a shebang dropped ([`shebang_len`]). The grader's
/// tokenizer must see what the compiler compiles: a shebang it failed on once hid a whole file
/// from the scan for refused constructs while `rustc` compiled the lines after it.
pub fn as_rustc_reads(text: &str) -> std::borrow::Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text: std::borrow::Cow<'_, str> = if text.contains("\r\n") {
        text.replace("\r\n", "\n").into()
    } else {
        text.into()
    };
    match shebang_len(&text) {
        Some(n) => text[n..].to_owned().into(),
        None => text,
    }
}

/// The length of the shebang line `rustc` strips from the start of `text` (after the byte order
/// mark), by its lexer's rule: text starting with `#!` is a shebang, up to the end of its line,
/// unless the first token after `#!` that is not whitespace or a plain (non-doc) comment is `[`
/// (then it is an inner attribute, `#![...]`, and Rust code).
pub fn shebang_len(text: &str) -> Option<usize> {
    let tail = text.strip_prefix("#!")?;
    if next_code_char(tail) == Some('[') {
        return None;
    }
    Some(2 + tail.find('\n').unwrap_or(tail.len()))
}

/// The first character of `text` past whitespace and plain comments, as `rustc`'s lexer skips
/// them (doc comments, `///`, `//!`, `/**`, `/*!`, are tokens; `////` and `/***` are not doc
/// comments; block comments nest; an unterminated one runs to the end).
fn next_code_char(text: &str) -> Option<char> {
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(is_rust_whitespace);
        if let Some(after) = rest.strip_prefix("//") {
            let doc =
                after.starts_with('!') || (after.starts_with('/') && !after.starts_with("//"));
            if doc {
                return Some('/');
            }
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            let doc = after.starts_with('!')
                || (after.starts_with('*') && !after.starts_with("**") && !after.starts_with("*/"));
            if doc {
                return Some('/');
            }
            rest = after_block_comment(after);
        } else {
            return rest.chars().next();
        }
    }
}

/// What follows the block comment whose opening `/*` ends just before `text` (nested comments
/// included), or `""` when it is never closed.
fn after_block_comment(text: &str) -> &str {
    let (bytes, mut depth, mut i) = (text.as_bytes(), 1usize, 0);
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => (depth, i) = (depth + 1, i + 2),
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return &text[i..];
                }
            }
            _ => i += 1,
        }
    }
    ""
}

/// Rust's whitespace (`Pattern_White_Space`), as its lexer skips it.
fn is_rust_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{b}'
            | '\u{c}'
            | '\r'
            | ' '
            | '\u{85}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Where in `names` is the first of them that Rust source `text` uses as an identifier, however
/// deep in a block or a macro's body, and not in a comment, a literal or a lifetime (`'static`
/// is no `static`). A raw identifier counts as its name (`r#include_str` as `include_str`). The
/// text is read as `rustc` reads it ([`as_rustc_reads`]).
///
/// `Err` when the text holds one of the names but does not tokenize: the grader cannot tell
/// where it is, so whoever asks must treat the file as using it. Text holding none of the names
/// needs no tokenizing: no reading of it by the compiler can find one.
pub fn first_ident(text: &str, names: &[&str]) -> Result<Option<usize>, String> {
    // An identifier's text is in the source: most files need no tokenizing at all.
    if !names.iter().any(|n| text.contains(n)) {
        return Ok(None);
    }
    let text = as_rustc_reads(text);
    let tokens = walk(&text).ok_or_else(|| {
        let error = text
            .parse::<proc_macro2::TokenStream>()
            .err()
            .map_or_else(String::new, |e| {
                let at = e.span().start();
                format!(" (line {}: {e})", at.line)
            });
        format!("does not read as Rust source{error}")
    })?;
    // A lifetime is a joint `'` followed by its name, in the same group.
    let (mut after_quote, mut level) = (false, 0);
    for (token, depth) in tokens {
        if depth != level {
            (after_quote, level) = (false, depth);
        }
        if let TokenTree::Ident(i) = &token
            && !after_quote
        {
            let name = i.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name);
            if let Some(found) = names.iter().position(|n| *n == name) {
                return Ok(Some(found));
            }
        }
        after_quote = matches!(&token, TokenTree::Punct(p)
            if p.as_char() == '\'' && p.spacing() == proc_macro2::Spacing::Joint);
    }
    Ok(None)
}

/// The deepest [`parse_depth`] the grader hands to `syn`, on a thread of
/// [`PARSER_STACK_BYTES`] ([`on_parser_stack`]): unoptimised, `syn` takes up to about 36 KiB of
/// stack per level (`&&&...u8` as a type; `!!!...x` takes 4), so this leaves a margin of three.
pub const MAX_PARSE_DEPTH: usize = 512;

/// The stack of [`on_parser_stack`]'s thread. Only the pages used are ever allocated.
pub const PARSER_STACK_BYTES: usize = 64 << 20;

/// `f` run on a thread of its own with a stack of [`PARSER_STACK_BYTES`], for a parser that
/// recurses (`syn`) on text up to [`MAX_PARSE_DEPTH`] whatever the caller's own stack. `f` must do
/// all its work with spans there: `proc_macro2` keeps their source text per thread. `None` when
/// no thread could be started or `f` panicked.
pub fn on_parser_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("parser".to_owned())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(s, f)
            .ok()?
            .join()
            .ok()
    })
}

/// What an opened group adds to [`parse_depth`] beyond its own token: a recursive-descent parser
/// goes through several calls (statement, expression, atom) to reach a group's contents.
const GROUP_DEPTH: usize = 4;

/// One group being walked by [`parse_depth`].
struct Run {
    trees: proc_macro2::token_stream::IntoIter,
    /// The depth at which the group's contents start.
    base: usize,
    /// Tokens since the last place where a parser is back in a list (of items, statements,
    /// arguments...), where its recursion so far has unwound.
    run: usize,
    /// Unclosed `<` since then: a `,` between generic arguments is no such place.
    angle: usize,
    /// The previous token: a `{...}` group, a `#` or `#!` (an attribute's start), a joint `-` or
    /// `=` (`->`, `=>`: their `>` closes nothing).
    after: After,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    Other,
    Brace,
    Pound,
    PoundBang,
    Arrow,
}

/// An upper bound of how deep a recursive-descent parser of Rust (`syn`) may have to call itself
/// to read `text`, by Rust's tokenizer; `None` when the text does not tokenize. `syn` recurses
/// for every bracket, prefix operator (`!!!!x`, `- - x`, `&&&x`), assignment (`a = b = c`),
/// generic argument (`A<A<A<u8>>>`) or `else if`, and so do its visitors and the drop of what
/// it builds: each token since the parser was last back in a list counts one level, each group
/// a few more, an attribute (read in a loop) none. A list is back after a `;`, after a `,` outside
/// generic arguments, and after a `{...}` that an item, a statement or an attribute follows (not
/// `else` or `as`). Counted with a stack of its own: any text is measured without recursion.
pub fn parse_depth(text: &str) -> Option<usize> {
    Some(stream_depth(&text.parse().ok()?))
}

/// [`parse_depth`] of text already tokenized.
pub fn stream_depth(tokens: &proc_macro2::TokenStream) -> usize {
    use proc_macro2::{Delimiter, Spacing};
    let run = |trees: proc_macro2::TokenStream, base| Run {
        trees: trees.into_iter(),
        base,
        run: 0,
        angle: 0,
        after: After::Other,
    };
    let mut deepest = 0;
    let mut stack = vec![run(tokens.clone(), 0)];
    while let Some(level) = stack.last_mut() {
        let Some(token) = level.trees.next() else {
            stack.pop();
            continue;
        };
        let after = std::mem::replace(&mut level.after, After::Other);
        let (punct, group) = match &token {
            TokenTree::Punct(p) => (Some((p.as_char(), p.spacing())), None),
            TokenTree::Group(g) => (None, Some(g.delimiter())),
            _ => (None, None),
        };
        let starts_item = match &token {
            TokenTree::Ident(i) => i != "else" && i != "as",
            _ => punct.is_some_and(|(c, _)| c == '#'),
        };
        if after == After::Brace && starts_item {
            (level.run, level.angle) = (0, 0);
        }
        let in_attribute = punct.is_some_and(|(c, _)| c == '#')
            || (after == After::Pound && punct.is_some_and(|(c, _)| c == '!'))
            || (matches!(after, After::Pound | After::PoundBang)
                && group == Some(Delimiter::Bracket));
        if !in_attribute {
            level.run += 1;
        }
        let here = level.base + level.run;
        deepest = deepest.max(here);
        match (punct, token) {
            (Some((';', _)), _) => (level.run, level.angle) = (0, 0),
            (Some((',', _)), _) if level.angle == 0 => level.run = 0,
            (Some(('<', _)), _) => level.angle += 1,
            (Some(('>', _)), _) if after != After::Arrow => {
                level.angle = level.angle.saturating_sub(1);
            }
            (Some(('-' | '=', Spacing::Joint)), _) => level.after = After::Arrow,
            (Some(('#', _)), _) => level.after = After::Pound,
            (Some(('!', _)), _) if after == After::Pound => level.after = After::PoundBang,
            (_, TokenTree::Group(g)) => {
                if g.delimiter() == Delimiter::Brace {
                    level.after = After::Brace;
                }
                stack.push(run(g.stream(), here + GROUP_DEPTH));
            }
            _ => {}
        }
    }
    deepest
}

/// What [`first_in_files`] found in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Use {
    /// It uses `names[i]`.
    Uses(usize),
    /// It could not be read, or holds one of the names and does not tokenize: why, for the
    /// student ([`first_ident`]).
    Unreadable(String),
}

/// The first file under `src` (in name order, as a path relative to it) that uses one of `names`
/// ([`first_ident`]) or cannot be read, and what it does. insta's scratch files are skipped.
pub fn first_in_files(src: &Path, names: &[&str]) -> Option<(String, Use)> {
    let rels = crate::fsutil::files_under(src, src, &|rel, _| crate::fsutil::is_scratch_file(rel));
    rels.into_iter().find_map(|rel| {
        let found = match std::fs::read(src.join(&rel)) {
            Ok(bytes) => in_bytes(&bytes, names)?,
            Err(e) => Use::Unreadable(format!("cannot be read ({e})")),
        };
        Some((rel, found))
    })
}

/// What source file contents `bytes` use of `names`, if anything ([`first_ident`]); bytes that
/// are not UTF-8 are read as `rustc` would never compile them, with the invalid parts replaced.
pub fn in_bytes(bytes: &[u8], names: &[&str]) -> Option<Use> {
    match first_ident(&String::from_utf8_lossy(bytes), names) {
        Ok(found) => found.map(Use::Uses),
        Err(why) => Some(Use::Unreadable(why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_found_in_code_only() {
        let names = ["static", "unsafe"];
        let found = |text: &str| first_ident(text, &names).unwrap().map(|i| names[i]);
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
        assert!(first_ident("fn f( { unsafe", &names).is_err());
        assert_eq!(first_ident("fn f( {", &["static"]), Ok(None));
    }

    #[test]
    fn the_first_line_is_read_as_rustc_reads_it() {
        // A shebang: `#!` not followed (past whitespace and plain comments) by `[`.
        for text in [
            "#!/ )\nfn f() {}",
            "#!/usr/bin/env run\nfn f() {}",
            "#!\nfn f() {}",
            "#! /// a doc comment is a token\n[x]",
            "#! /** so is this */ [x]",
            "#! /* never closed",
        ] {
            let line = text.find('\n').unwrap_or(text.len());
            assert_eq!(shebang_len(text), Some(line), "{text:?}");
        }
        // An inner attribute.
        for text in [
            "#![allow(x)]",
            "#! [allow(x)]",
            "#! /* a */ /* b /* nested */ */ [allow(x)]",
            "#!// plain\n//// also plain\n/*** and this */ /**/ [allow(x)]",
            "#!\u{200e}\t[allow(x)]",
        ] {
            assert_eq!(shebang_len(text), None, "{text:?}");
        }
        assert_eq!(shebang_len("fn f() {} #!x"), None);
        assert_eq!(
            as_rustc_reads("\u{feff}#!/ )\r\nfn f() {}\r\n"),
            "\nfn f() {}\n"
        );
        assert_eq!(as_rustc_reads("#![a]\r\n"), "#![a]\n");
        // What the shebang hid is found, on the line it is on.
        assert_eq!(
            first_ident("#!/ )\nunsafe fn f() {}", &["unsafe"]),
            Ok(Some(0))
        );
        let error = first_ident("fn f() {\n unsafe (", &["unsafe"]).unwrap_err();
        assert!(
            error.starts_with("does not read as Rust source (line 2"),
            "{error}"
        );
    }

    /// Rust that `syn` reads by recursing once or more per repetition of its middle part:
    /// `(before, repeated, after)`.
    const RECURSIVE: &[(&str, &str, &str)] = &[
        ("let _ = ", "!", "x;"),
        ("let _ = ", "- ", "x;"),
        ("let _ = ", "& ", "x;"),
        ("let _ = ", "&mut ", "x;"),
        ("let _ = ", "* ", "x;"),
        ("let _ = ", "- #[a] #[b] ", "x;"),
        ("let _ = ", "|| ", "x;"),
        ("", "return ", "x;"),
        ("", "x = ", "x;"),
        ("", "x += ", "x;"),
        ("x = ", "{0} = ", "{0};"),
        ("if c {} ", "else if c {} ", "else {}"),
        ("let _: ", "&", "u8 = x;"),
        ("let _: ", "*const ", "u8 = x;"),
        ("let _: ", "fn() -> ", "u8 = x;"),
        ("let _: ", "HashMap<u8, ", "u8"),
        ("let _: ", "<", "T"),
        ("let ", "& ", "x = y;"),
        ("let ", "&mut ", "x = y;"),
        ("let _ = ", "(", "x"),
    ];

    /// The function around `n` repetitions of a [`RECURSIVE`] pattern (closed where it opens).
    fn recursive(&(before, middle, after): &(&str, &str, &str), n: usize) -> String {
        let close = match middle {
            "HashMap<u8, " => ",>",
            "<" => " as A>::B",
            "(" => ")",
            _ => "",
        };
        let tail = if close.is_empty() {
            after.to_owned()
        } else {
            format!("{after}{};", close.repeat(n))
        };
        format!("fn f() {{ {before}{}{tail} }}", middle.repeat(n))
    }

    #[test]
    fn parse_depth_counts_every_recursion_of_a_parser_and_not_lists() {
        assert_eq!(parse_depth("const N: u8 = 1;"), Some(7));
        assert_eq!(parse_depth("fn f( {"), None);
        // In comments and literals, nothing counts.
        let quoted = parse_depth("fn f() { \"((((!!!!\" } // [[[[\n/* {{{{ */");
        assert_eq!(quoted, parse_depth("fn f() { \"\" }"));
        for pattern in RECURSIVE {
            let (short, long) = (recursive(pattern, 10), recursive(pattern, 1010));
            let grows = parse_depth(&long).unwrap() - parse_depth(&short).unwrap();
            assert!(grows >= 1000, "{pattern:?} grows by {grows}");
        }
        // Lists the parser reads in a loop add nothing: statements, items, attributes, doc
        // comments, elements, match arms. (Generic arguments side by side count: a `,` between
        // them may close nothing, as in `A<B, A<B, u8>>`.)
        let one = |text: &str| parse_depth(text).unwrap();
        for (few, many) in [
            (
                "fn f() { x; }",
                format!("fn f() {{ {} }}", "x; ".repeat(2000)),
            ),
            ("pub fn f() {}", "pub fn f() {}\n".repeat(2000)),
            (
                "fn f() { if c {} }",
                format!("fn f() {{ {} }}", "if c {} ".repeat(2000)),
            ),
            (
                "/// Doc.\nfn f() {}",
                format!("{}fn f() {{}}", "/// Doc.\n#[a]\n".repeat(2000)),
            ),
            (
                "fn f() { [1,] }",
                format!("fn f() {{ [{}] }}", "1, ".repeat(2000)),
            ),
            (
                "fn f() { match x { a => b, } }",
                format!("fn f() {{ match x {{ {} }} }}", "a => b, ".repeat(2000)),
            ),
        ] {
            assert_eq!(one(few), one(&many), "{few}");
        }
        // Deeper than any stack would allow by recursion (the test runs on a 2 MiB thread).
        let deep = format!(
            "fn f() {{ {}1{} }}",
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        assert!(parse_depth(&deep).unwrap() > 1_000_000);
        // Nested comments, a tokenizer's own nesting, are read without recursion too.
        let comments = format!(
            "{}{} fn f() {{}}",
            "/*".repeat(200_000),
            "*/".repeat(200_000)
        );
        assert_eq!(parse_depth(&comments), parse_depth("fn f() {}"));
    }

    #[test]
    fn the_parser_reads_up_to_the_limit_on_its_own_stack() {
        // The course's files are far from the limit.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for tree in ["exercises", "solutions"] {
            for rel in crate::fsutil::files_under(&root.join(tree), &root.join(tree), &|_, _| false)
            {
                if !rel.ends_with(".rs") || rel.contains("/target/") {
                    continue;
                }
                let text = std::fs::read_to_string(root.join(tree).join(&rel)).unwrap();
                let depth = parse_depth(&as_rustc_reads(&text)).unwrap();
                assert!(depth < MAX_PARSE_DEPTH / 2, "{tree}/{rel}: {depth}");
            }
        }
        // Every pattern just under the limit parses, visited and dropped, on the parser's stack,
        // called from a test thread's 2 MiB.
        for pattern in RECURSIVE {
            let fits = |n: usize| parse_depth(&recursive(pattern, n)).unwrap() <= MAX_PARSE_DEPTH;
            let n = (1..MAX_PARSE_DEPTH)
                .collect::<Vec<_>>()
                .partition_point(|&n| fits(n));
            let text = recursive(pattern, n);
            let read = on_parser_stack(|| {
                let file = syn::parse_file(&text).map_err(|e| e.to_string())?;
                let mut count = CountFns(0);
                syn::visit::Visit::visit_file(&mut count, &file);
                Ok::<_, String>(count.0)
            });
            assert_eq!(read, Some(Ok(1)), "{pattern:?}");
        }
    }

    struct CountFns(usize);

    impl<'ast> syn::visit::Visit<'ast> for CountFns {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.0 += 1;
            syn::visit::visit_item_fn(self, f);
        }
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
            Some(("b/c.rs".to_owned(), Use::Uses(1)))
        );
        assert_eq!(
            first_in_files(src, &["unsafe"]),
            Some(("d.rs".to_owned(), Use::Uses(0)))
        );
        assert_eq!(first_in_files(src, &["thread_local"]), None);
    }
}
