//! Rust source as a stream of token classes, one stream per unit of a lesson file (each exercise's
//! `fn`, and the rest as "other code"): comments and whitespace dropped, every identifier that is
//! not a keyword one token (renaming changes nothing), every literal the token of its kind;
//! keywords, punctuation and brackets kept as they are.

use crate::course::tokens;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::visit::Visit;

/// One normalised token.
pub type Token = u32;

/// Every identifier that is not a keyword.
const IDENT: Token = 1;
/// String literals (plain, raw, byte and C strings).
const STRING: Token = 2;
/// Character and byte literals.
const CHAR: Token = 3;
/// Number literals.
const NUMBER: Token = 4;
/// The first keyword's token; keyword `i` of [`KEYWORDS`] is `KEYWORD + i`.
const KEYWORD: Token = 16;
/// A punctuation character's or bracket's token is `PUNCT + its code point`.
const PUNCT: Token = 256;

/// Rust's keywords (strict, reserved and weak ones that read as such), `true` and `false`, in
/// byte order (for a binary search).
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The token streams of one lesson file: `exercises[i]` holds the tokens of every `fn` named
/// like the lesson's exercise `i` (a free function or a method), `other` every other token.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Units {
    /// Per exercise of the lesson, in its order: the tokens of its `fn`.
    pub exercises: Vec<Vec<Token>>,
    /// The tokens outside every exercise's `fn` (imports, helpers, types).
    pub other: Vec<Token>,
}

/// The units of the lesson file `text` whose exercises are `names`; `None` when the text does not
/// tokenize as Rust. A file that tokenizes but does not parse, or that a parser would have to
/// recurse into deeper than [`tokens::MAX_PARSE_DEPTH`], is all "other code": its tokens are
/// compared all the same.
pub fn units(text: &str, names: &[&str]) -> Option<Units> {
    let text = tokens::as_rustc_reads(text);
    // With no exercise to find, nothing to parse (the handout's code).
    if names.is_empty() {
        return split(&text, names, false);
    }
    // All on the parser's thread: spans are read on the thread that made them.
    tokens::on_parser_stack(|| split(&text, names, true))
        .unwrap_or_else(|| split(&text, names, false))
}

/// [`units`] of `text` read as `rustc` reads it, parsed with `syn` only when `parse` and it
/// nests no deeper than [`tokens::MAX_PARSE_DEPTH`].
fn split(text: &str, names: &[&str], parse: bool) -> Option<Units> {
    let stream: TokenStream = text.parse().ok()?;
    let flat = flatten(stream.clone());
    let spans = if parse && tokens::stream_depth(&stream) <= tokens::MAX_PARSE_DEPTH {
        syn::parse2::<syn::File>(stream)
            .map(|file| fn_spans(&file, names))
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut out = Units {
        exercises: vec![Vec::new(); names.len()],
        other: Vec::new(),
    };
    for (token, at) in flat {
        match spans
            .iter()
            .find(|(_, start, end)| *start <= at && at < *end)
        {
            Some((i, _, _)) => out.exercises[*i].push(token),
            None => out.other.push(token),
        }
    }
    Some(out)
}

/// A position in the source: line (from 1) and column (in characters, from 0).
type At = (usize, usize);

fn at(span: proc_macro2::Span) -> At {
    let lc = span.start();
    (lc.line, lc.column)
}

fn end(span: proc_macro2::Span) -> At {
    let lc = span.end();
    (lc.line, lc.column)
}

/// Where each `fn` named like an exercise is: `(exercise index, first position, end)`.
fn fn_spans(file: &syn::File, names: &[&str]) -> Vec<(usize, At, At)> {
    let mut finder = FindFns {
        names,
        found: Vec::new(),
    };
    finder.visit_file(file);
    finder.found
}

struct FindFns<'a> {
    names: &'a [&'a str],
    found: Vec<(usize, At, At)>,
}

impl FindFns<'_> {
    /// Records the `fn` with signature `sig`, from its first attribute (or its signature) to the
    /// end of `last` (its body, or the `;` of a trait's function without one). Spans are taken
    /// from the tokens' fields: quoting the whole function again to find its ends cost as much
    /// as parsing it.
    fn add(
        &mut self,
        attrs: &[syn::Attribute],
        vis: Option<&syn::Visibility>,
        sig: &syn::Signature,
        last: proc_macro2::Span,
    ) {
        let Some(i) = self.names.iter().position(|n| sig.ident == n) else {
            return;
        };
        let vis = match vis {
            Some(syn::Visibility::Public(p)) => Some(p.span),
            Some(syn::Visibility::Restricted(r)) => Some(r.pub_token.span),
            _ => None,
        };
        let first = attrs
            .first()
            .map(|a| a.pound_token.span)
            .or(vis)
            .or(sig.constness.map(|t| t.span))
            .or(sig.asyncness.map(|t| t.span))
            .or(sig.abi.as_ref().map(|a| a.extern_token.span))
            .unwrap_or(sig.fn_token.span);
        self.found.push((i, at(first), end(last)));
    }
}

impl<'ast> Visit<'ast> for FindFns<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(
            &f.attrs,
            Some(&f.vis),
            &f.sig,
            f.block.brace_token.span.close(),
        );
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.add(
            &f.attrs,
            Some(&f.vis),
            &f.sig,
            f.block.brace_token.span.close(),
        );
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        let last = match (&f.default, &f.semi_token) {
            (Some(body), _) => body.brace_token.span.close(),
            (None, Some(semi)) => semi.span,
            (None, None) => f.sig.fn_token.span,
        };
        self.add(&f.attrs, None, &f.sig, last);
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// One level of the walk: its tokens, the next one, and the closing bracket to emit at its end.
type Level = (Vec<TokenTree>, usize, Option<(Token, At)>);

/// Every normalised token of `stream` with its position, brackets as tokens of their own, doc
/// attributes left out. Walked with a stack, not by recursion (see `tokens::walk`).
fn flatten(stream: TokenStream) -> Vec<(Token, At)> {
    let mut out = Vec::new();
    let mut stack: Vec<Level> = vec![(stream.into_iter().collect(), 0, None)];
    while let Some((level, next, close)) = stack.last_mut() {
        let Some(tree) = level.get(*next) else {
            out.extend(close.take());
            stack.pop();
            continue;
        };
        let skip = doc_attribute(&level[*next..]);
        if skip > 0 {
            *next += skip;
            continue;
        }
        *next += 1;
        match tree {
            TokenTree::Group(g) => {
                let (open, shut) = match g.delimiter() {
                    Delimiter::Parenthesis => (Some('('), Some(')')),
                    Delimiter::Brace => (Some('{'), Some('}')),
                    Delimiter::Bracket => (Some('['), Some(']')),
                    Delimiter::None => (None, None),
                };
                out.extend(open.map(|c| (PUNCT + c as Token, at(g.span_open()))));
                let shut = shut.map(|c| (PUNCT + c as Token, at(g.span_close())));
                let inner = g.stream().into_iter().collect();
                stack.push((inner, 0, shut));
            }
            TokenTree::Ident(i) => out.push((ident(&i.to_string()), at(i.span()))),
            TokenTree::Punct(p) => out.push((PUNCT + p.as_char() as Token, at(p.span()))),
            TokenTree::Literal(l) => out.push((literal(&l.to_string()), at(l.span()))),
        }
    }
    out
}

/// How many tokens a doc attribute at the start of `trees` takes (`#`, maybe `!`, `[doc ...]`),
/// 0 when there is none.
fn doc_attribute(trees: &[TokenTree]) -> usize {
    let is_punct =
        |t: Option<&TokenTree>, c| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    if !is_punct(trees.first(), '#') {
        return 0;
    }
    let bang = usize::from(is_punct(trees.get(1), '!'));
    match trees.get(1 + bang) {
        Some(TokenTree::Group(g))
            if g.delimiter() == Delimiter::Bracket
                && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc") =>
        {
            2 + bang
        }
        _ => 0,
    }
}

/// An identifier's token: a keyword's own, else [`IDENT`].
fn ident(text: &str) -> Token {
    KEYWORDS
        .binary_search(&text)
        .map_or(IDENT, |i| KEYWORD + i as Token)
}

/// A literal's token: the class of its kind.
fn literal(text: &str) -> Token {
    let kind = text.trim_start_matches(['b', 'c', 'r']);
    if kind.starts_with(['"', '#']) {
        STRING
    } else if kind.starts_with('\'') {
        CHAR
    } else {
        NUMBER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str, names: &[&str]) -> Units {
        units(text, names).expect("tokenizes")
    }

    #[test]
    fn renaming_reformatting_and_comments_change_nothing() {
        let a = "/// Adds.\npub fn add(x: i32, y: i32) -> i32 {\n    x + y // sum\n}\n";
        let b = "// mine\npub fn add(first:i32,second:i32)->i32{ /* add them */ first+second }";
        assert_eq!(tokens(a, &["add"]), tokens(b, &["add"]));
        let c = "pub fn add(x: i32, y: i32) -> i32 { x - y }";
        assert_ne!(tokens(a, &["add"]), tokens(c, &["add"]));
    }

    #[test]
    fn keywords_are_sorted_for_their_binary_search() {
        assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(ident("Self"), KEYWORD);
        assert_eq!(ident("while"), KEYWORD + KEYWORDS.len() as Token - 2);
        assert_eq!(ident("whilst"), IDENT);
    }

    #[test]
    fn literals_become_their_kind() {
        let a = tokens("fn f() { g(1, \"a\", 'x', 2.5) }", &["f"]);
        let b = tokens("fn f() { h(7, r#\"b\"#, 'y', 1e3) }", &["f"]);
        assert_eq!(a, b);
        let c = tokens("fn f() { g(\"1\", \"a\", 'x', 2.5) }", &["f"]);
        assert_ne!(a, c);
    }

    #[test]
    fn each_exercise_fn_is_its_own_unit_and_the_rest_is_other_code() {
        let text = "use a::b;\nfn helper() -> u8 { 1 }\nfn one() { helper(); }\n\
                    impl S {\n    /// Doc.\n    pub fn two(&self) -> u8 { 2 }\n}\n";
        let u = tokens(text, &["one", "two", "three"]);
        assert_eq!(
            u.exercises[0],
            tokens("fn x() { y(); }", &["x"]).exercises[0]
        );
        assert_eq!(
            u.exercises[1],
            tokens("pub fn t(&self) -> u8 { 2 }", &["t"]).exercises[0]
        );
        assert!(u.exercises[2].is_empty());
        let rest = tokens("use a::b; fn h() -> u8 { 1 } impl S { }", &[]).other;
        assert_eq!(u.other, rest);
    }

    #[test]
    fn text_that_does_not_parse_is_other_code_and_text_that_does_not_tokenize_is_none() {
        let u = tokens("fn one() { let }", &["one"]);
        assert!(u.exercises[0].is_empty());
        assert_eq!(u.other.len(), 7);
        assert_eq!(units("fn one() { \"", &["one"]), None);
        // Deeper than syn may recurse: tokens all the same, no stack overflow.
        let deep = format!(
            "fn one() {{ {}{} }}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let u = tokens(&deep, &["one"]);
        assert!(u.exercises[0].is_empty());
        assert_eq!(u.other.len(), 200_006);
    }

    #[test]
    fn code_too_deep_for_the_parser_is_other_code_and_deep_code_is_parsed_on_its_own_stack() {
        let file = |n: usize, prefix: &str| {
            format!(
                "fn one(x: bool) -> bool {{ {}x }}\nfn two() {{}}",
                prefix.repeat(n)
            )
        };
        // `rustc` compiles any number of `!`; `syn` would recurse once for each.
        for n in [100_000, tokens::MAX_PARSE_DEPTH] {
            let u = tokens(&file(n, "!"), &["one", "two"]);
            assert!(u.exercises.iter().all(Vec::is_empty), "{n}");
            assert_eq!(u.other.len(), n + 19);
        }
        // `&` in a type takes `syn` more stack each than a test thread's 2 MiB allow for 300.
        let deep_type = format!("fn one(x: {}u8) {{}}\nfn two() {{}}", "&".repeat(300));
        let u = tokens(&deep_type, &["one", "two"]);
        assert_eq!(u.exercises[0].len(), 309);
        assert_eq!(u.exercises[1].len(), 6);
        assert!(u.other.is_empty());
    }
}
