//! Terminal colour: `anstyle` styles, switched on or off once per run by `anstream`'s own
//! decision (the one clap uses): off with `NO_COLOR`, on with `CLICOLOR_FORCE` even when the
//! output is not a terminal, off with `CLICOLOR=0`, else on for a colour-capable terminal only.

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Effects};

/// Whether to colour text, decided once per run.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// Colour when `choice` (an `anstream` decision) asks for it.
    pub fn from_choice(choice: ColorChoice) -> Self {
        Self {
            enabled: matches!(choice, ColorChoice::Always | ColorChoice::AlwaysAnsi),
        }
    }

    /// No colour at all (text written to a file).
    pub fn plain() -> Self {
        Self { enabled: false }
    }

    /// For stdout: `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `TERM` and whether stdout is a
    /// terminal, as `anstream` reads them.
    pub fn stdout() -> Self {
        Self::from_choice(AutoStream::choice(&std::io::stdout()))
    }

    fn paint(&self, style: anstyle::Style, text: &str) -> String {
        if self.enabled {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// Green text.
    pub fn green(&self, t: &str) -> String {
        self.paint(AnsiColor::Green.on_default(), t)
    }
    /// Red text.
    pub fn red(&self, t: &str) -> String {
        self.paint(AnsiColor::Red.on_default(), t)
    }
    /// Yellow text.
    pub fn yellow(&self, t: &str) -> String {
        self.paint(AnsiColor::Yellow.on_default(), t)
    }
    /// Dim text.
    pub fn dim(&self, t: &str) -> String {
        self.paint(Effects::DIMMED.into(), t)
    }
    /// Bold text.
    pub fn bold(&self, t: &str) -> String {
        self.paint(Effects::BOLD.into(), t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_escape_codes_are_the_usual_ones() {
        let on = Style::from_choice(ColorChoice::Always);
        assert_eq!(on.green("ok"), "\x1b[32mok\x1b[0m");
        assert_eq!(on.red("x"), "\x1b[31mx\x1b[0m");
        assert_eq!(on.yellow("x"), "\x1b[33mx\x1b[0m");
        assert_eq!(on.dim("x"), "\x1b[2mx\x1b[0m");
        assert_eq!(on.bold("x"), "\x1b[1mx\x1b[0m");
        assert_eq!(Style::from_choice(ColorChoice::Never).green("ok"), "ok");
        assert_eq!(Style::plain().bold("ok"), "ok");
    }

    /// The variable that makes [`stdout_probe`] report its decision (to the file it names).
    const PROBE: &str = "XTASK_STYLE_PROBE";

    /// Run by [`the_environment_decides`] in a child process, whose stdout is a pipe: writes
    /// whether `Style::stdout()` colours. Does nothing in a normal test run.
    #[test]
    fn stdout_probe() {
        if let Some(out) = std::env::var_os(PROBE) {
            std::fs::write(out, Style::stdout().green("x")).unwrap();
        }
    }

    /// Whether `Style::stdout()` colours in this test binary run with stdout not a terminal and
    /// exactly the colour variables `vars` set (the rest of the environment as ours).
    fn colours_with(vars: &[(&str, &str)]) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("probe");
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--exact",
            "report::style::tests::stdout_probe",
            "--test-threads=1",
        ])
        .env(PROBE, &out);
        for var in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
            cmd.env_remove(var);
        }
        cmd.envs(vars.iter().copied());
        let status = cmd.output().unwrap().status;
        assert!(status.success());
        std::fs::read_to_string(out).unwrap() != "x"
    }

    #[test]
    fn the_environment_decides() {
        // Not a terminal: plain, unless forced.
        assert!(!colours_with(&[]));
        assert!(colours_with(&[("CLICOLOR_FORCE", "1")]));
        assert!(!colours_with(&[("CLICOLOR", "1")]));
        // NO_COLOR wins over everything; an empty NO_COLOR is no NO_COLOR.
        assert!(!colours_with(&[("NO_COLOR", "1")]));
        assert!(!colours_with(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]));
        assert!(colours_with(&[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")]));
    }
}
