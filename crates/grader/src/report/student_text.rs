//! Text a student controls (an archive entry's name, a file name, a submission's id, an error
//! quoting them), made safe to print or store: every control character (C0, line feeds and tabs
//! included, DEL and C1) and every character that reorders the text around it (the bidirectional
//! overrides of "Trojan Source") is written out as an escape (`\u{1b}`, `\n`), and the text is cut
//! to a length, with the cut said (`… (1048376 more characters)`).
//!
//! One line of text that a terminal cannot obey and a spreadsheet cell or a progress line cannot be
//! flooded with: an entry named `ESC[2J` plus forged text must not clear an instructor's screen
//! when `cat grades.csv` prints it, and a name of megabytes must not become a row of megabytes.

/// Characters kept of a name quoted inside a message (an entry or file name).
pub const NAME_CHARS: usize = 200;

/// Characters kept of a whole message (a gradebook cell, a progress line), names already cut.
pub const MESSAGE_CHARS: usize = 2000;

/// `text` as a name quoted in a message: escaped, at most [`NAME_CHARS`] characters and the cut.
pub fn name(text: &str) -> String {
    shown(text, NAME_CHARS)
}

/// `text` as a whole message on one line: escaped, at most [`MESSAGE_CHARS`] characters and the
/// cut.
pub fn message(text: &str) -> String {
    shown(text, MESSAGE_CHARS)
}

/// `text` with each [`hidden_effect`] character escaped and at most `max_chars` characters of
/// escaped text, followed, when cut, by `… (N more characters)` (`N` counts the characters of
/// `text` left out).
pub fn shown(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars) + 8);
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let start = out.len();
        if hidden_effect(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        // An escape is kept whole or not at all, so the text never ends in half of one.
        used += out[start..].chars().count();
        if used > max_chars {
            out.truncate(start);
            let left = text[at..].chars().count();
            out.push_str(&format!("… ({left} more characters)"));
            break;
        }
    }
    out
}

/// A character a terminal obeys rather than shows, or one a single line must not hold: any
/// control character (C0, DEL, C1), or one that reorders the text around it (bidirectional
/// overrides, isolates and marks).
pub fn hidden_effect(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            name("a\x1b[2Jb\x07c\rd\ne\x7ff\u{9b}g\th"),
            "a\\u{1b}[2Jb\\u{7}c\\rd\\ne\\u{7f}f\\u{9b}g\\th"
        );
        assert_eq!(name("0/26\u{202e}62/0"), "0/26\\u{202e}62/0");
        // Ordinary text, non-ASCII and backslashes included, is kept as it is.
        assert_eq!(
            name("exercises/lesson01/src/é ✓ \\x.rs"),
            "exercises/lesson01/src/é ✓ \\x.rs"
        );
        let escaped = message("\x1b[2J\x1b[HTotal: 26/26\u{7}\u{9b}\n");
        assert!(!escaped.chars().any(|c| c.is_control()), "{escaped:?}");
    }

    #[test]
    fn long_text_is_cut_and_the_cut_said() {
        let huge = "a".repeat(1 << 20);
        let cut = name(&huge);
        assert_eq!(
            cut,
            format!(
                "{}… ({} more characters)",
                "a".repeat(NAME_CHARS),
                (1 << 20) - NAME_CHARS
            )
        );
        assert!(cut.len() < 300);
        assert_eq!(name(&"b".repeat(NAME_CHARS)), "b".repeat(NAME_CHARS));
        // Escapes count at their printed length and are never split.
        let controls = "\x1b".repeat(1 << 20);
        let cut = message(&controls);
        assert!(cut.chars().count() < MESSAGE_CHARS + 40, "{}", cut.len());
        let kept = cut.split('…').next().unwrap();
        assert_eq!(kept, "\\u{1b}".repeat(MESSAGE_CHARS / 6));
        assert!(cut.ends_with(&format!(
            "({} more characters)",
            (1 << 20) - MESSAGE_CHARS / 6
        )));
    }
}
