//! Text made inert for the feedback pages: HTML-escaped, percent-encoded in a link, escaped or
//! fenced in Markdown. Everything a student wrote (an id, a panic message, compiler output, a file
//! name) goes through here before it reaches a page.

use crate::report::readable::printable;

/// Characters kept of one text shown on a page (a check's message, compiler output): a student's
/// panic message can be megabytes.
pub const TEXT_CHARS: usize = 4000;

/// `text` with at most `max_chars` characters, followed, when cut, by `… (N more characters)`.
pub fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
    }
}

/// `text` as HTML text or a quoted attribute value: `&`, `<`, `>`, `"` and `'` written as
/// entities (tabs too), and every other control or reordering character but line feeds written
/// out as an escape ([`printable`]), so it can neither open a tag, close a quote nor reorder what
/// it shows.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in printable(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Shown as a tab, without a control byte in the file.
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

/// `name` as one path segment of a relative link (`href`): every byte but ASCII letters, digits,
/// `-`, `_`, `.` and `~` percent-encoded, so no name becomes a scheme (`javascript:`), a folder
/// or a query; HTML-safe as it is.
pub fn href(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    // `.` and `..` alone would name a folder.
    if out.chars().all(|c| c == '.') {
        out = out.replace('.', "%2E");
    }
    out
}

/// `text` as Markdown inline text on one line: control characters (line feeds included) written
/// out, and every ASCII punctuation character that Markdown (CommonMark, GitHub's tables,
/// autolinks and mentions) reads backslash-escaped, so it can start no emphasis, link, code span,
/// HTML tag, entity, table cell or mention; the others (`,;:'"?=/%$^`) are left as written.
pub fn md_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in crate::report::student_text::shown(text, usize::MAX).chars() {
        if c.is_ascii_punctuation() && !",;:'\"?=/%$^".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as a fenced Markdown code block: the fence is longer than any run of backticks in the
/// text, so nothing in it can close the block (everything inside a block is shown as it is).
pub fn md_fence(text: &str) -> String {
    // Tabs as spaces: the file holds no control byte but its line ends.
    let text = printable(text).replace('\t', "    ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}text\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_text_cannot_open_a_tag_or_close_a_quote() {
        let hostile = "<script>alert(1)</script></style>\"'&\u{202e}\x1b[2J";
        let out = html(hostile);
        assert_eq!(
            out,
            "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/style&gt;&quot;&#39;&amp;\\u{202e}\\u{1b}[2J"
        );
        assert_eq!(html("a\nb\tc"), "a\nb&#9;c");
    }

    #[test]
    fn links_are_one_inert_path_segment() {
        assert_eq!(href("alice-1_b.c~"), "alice-1_b.c~");
        assert_eq!(href("javascript:alert(1)"), "javascript%3Aalert%281%29");
        assert_eq!(href("../x y\"<"), "..%2Fx%20y%22%3C");
        assert_eq!(href(".."), "%2E%2E");
        assert_eq!(href("é"), "%C3%A9");
    }

    #[test]
    fn markdown_escapes_inline_text_and_fences_blocks() {
        assert_eq!(
            md_inline("<b>*x*</b>|`y`, &a @b"),
            "\\<b\\>\\*x\\*\\</b\\>\\|\\`y\\`, \\&a \\@b"
        );
        assert_eq!(md_inline("a\nb"), "a\\\\nb");
        let block = md_fence("```\n</pre>\n````x");
        assert!(block.starts_with("`````text\n"), "{block}");
        assert!(block.ends_with("\n`````\n"), "{block}");
        assert_eq!(md_fence("plain"), "```text\nplain\n```\n");
    }

    #[test]
    fn long_text_is_cut_and_the_cut_said() {
        assert_eq!(cut("abcdef", 4), "abcd… (2 more characters)");
        assert_eq!(cut("abc", 4), "abc");
    }
}
