//! Terminal colour, off when `NO_COLOR` is set or the output is not a terminal.

use std::io::IsTerminal;

/// Whether to colour text, decided once per run.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// Colour only on a terminal and when `NO_COLOR` is unset or empty (<https://no-color.org>).
    pub fn detect(stream_is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            enabled: stream_is_terminal && !no_color,
        }
    }

    /// No colour at all (text written to a file).
    pub fn plain() -> Self {
        Self { enabled: false }
    }

    /// For stdout.
    pub fn stdout() -> Self {
        Self::detect(std::io::stdout().is_terminal())
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Green text.
    pub fn green(&self, t: &str) -> String {
        self.paint("32", t)
    }
    /// Red text.
    pub fn red(&self, t: &str) -> String {
        self.paint("31", t)
    }
    /// Yellow text.
    pub fn yellow(&self, t: &str) -> String {
        self.paint("33", t)
    }
    /// Dim text.
    pub fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
    /// Bold text.
    pub fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
}
