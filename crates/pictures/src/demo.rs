//! The demos' runner: prints each line from a computation ([`Demo::line`]), draws figures
//! ([`Demo::figure`]) in the terminal, to SVG files and next to the reference's, and ends with what
//! was not computed ([`Demo::finish`]).
//!
//! A demo's command line (passed by `cargo xtask demo`):
//!
//! * `--svg DIR`: also write every figure to `DIR/<id>.svg`;
//! * `--figures FILE`: write every figure as JSON to `FILE` at the end (the reference's run for
//!   `--compare`);
//! * `--compare FILE`: draw each figure next to the figure of the same id in `FILE`;
//! * `--color auto|never|256|truecolor`: the terminal shading (default `auto`, see
//!   [`ColorMode::detect`]).

use crate::figure::Figure;
use crate::steps::{Skip, Val, attempt};
use crate::term::{self, ColorMode};
use std::cell::RefCell;
use std::path::PathBuf;
use std::process::ExitCode;

/// What a demo was asked to do besides printing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Write one SVG per figure here.
    pub svg: Option<PathBuf>,
    /// Write the figures as JSON here at the end.
    pub figures: Option<PathBuf>,
    /// Draw the figures of this JSON file (the reference's) next to ours.
    pub compare: Option<PathBuf>,
    /// The shading, when not detected.
    pub color: Option<ColorMode>,
}

impl Options {
    /// Parses the demo's arguments (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut opts = Self::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--svg" => opts.svg = Some(value("--svg")?.into()),
                "--figures" => opts.figures = Some(value("--figures")?.into()),
                "--compare" => opts.compare = Some(value("--compare")?.into()),
                "--color" => {
                    opts.color = match value("--color")?.as_str() {
                        "auto" => None,
                        "never" => Some(ColorMode::Ramp),
                        "256" => Some(ColorMode::Ansi256),
                        "truecolor" => Some(ColorMode::TrueColor),
                        other => return Err(format!("--color: unknown value `{other}`")),
                    }
                }
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        Ok(opts)
    }
}

/// A running demo: where its lines go and what it could not compute.
pub struct Demo {
    lesson: String,
    opts: Options,
    mode: ColorMode,
    width: usize,
    reference: Vec<Figure>,
    figures: RefCell<Vec<Figure>>,
    missing: RefCell<Vec<String>>,
    problems: RefCell<Vec<String>>,
    captured: Option<RefCell<String>>,
}

impl Demo {
    /// Starts lesson `lesson`'s demo with this process's arguments; exits with status 2 on a bad
    /// argument or an unreadable `--compare` file.
    pub fn start(lesson: &str) -> Self {
        let opts = Options::parse(std::env::args().skip(1)).unwrap_or_else(|e| {
            eprintln!("{lesson} demo: {e}");
            std::process::exit(2)
        });
        let mode = opts.color.unwrap_or_else(ColorMode::detect);
        Self::new(lesson, opts, mode, term::width(), false).unwrap_or_else(|e| {
            eprintln!("{lesson} demo: {e}");
            std::process::exit(2)
        })
    }

    /// A demo with explicit options; with `capture`, lines are kept (see [`Demo::output`]) instead
    /// of printed.
    pub fn new(
        lesson: &str,
        opts: Options,
        mode: ColorMode,
        width: usize,
        capture: bool,
    ) -> Result<Self, String> {
        let reference = match &opts.compare {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                serde_json::from_str(&text)
                    .map_err(|e| format!("{} is not a figures file: {e}", path.display()))?
            }
            None => Vec::new(),
        };
        Ok(Self {
            lesson: lesson.to_owned(),
            opts,
            mode,
            width,
            reference,
            figures: RefCell::new(Vec::new()),
            missing: RefCell::new(Vec::new()),
            problems: RefCell::new(Vec::new()),
            captured: capture.then(|| RefCell::new(String::new())),
        })
    }

    /// Everything said so far (a capturing demo only).
    pub fn output(&self) -> String {
        self.captured
            .as_ref()
            .map(|c| c.borrow().clone())
            .unwrap_or_default()
    }

    /// Prints `text` and a newline.
    pub fn say(&self, text: impl AsRef<str>) {
        match &self.captured {
            Some(c) => {
                let mut c = c.borrow_mut();
                c.push_str(text.as_ref());
                c.push('\n');
            }
            None => println!("{}", text.as_ref()),
        }
    }

    fn record(&self, skip: &Skip) {
        match skip {
            Skip::NotImplemented(f) => {
                let mut m = self.missing.borrow_mut();
                if !m.contains(f) {
                    m.push(f.clone());
                }
            }
            other => {
                let mut p = self.problems.borrow_mut();
                let d = other.describe();
                if !p.contains(&d) {
                    p.push(d);
                }
            }
        }
    }

    /// Computes a value for later lines; a panic or error is kept as the [`Skip`] (and counted).
    pub fn value<T>(&self, f: impl FnOnce() -> Val<T>) -> Val<T> {
        let v = attempt(f);
        if let Err(skip) = &v {
            self.record(skip);
        }
        v
    }

    /// Prints `label` followed by the computed text, or by why it could not be computed.
    pub fn line(&self, label: &str, f: impl FnOnce() -> Val<String>) {
        match self.value(f) {
            Ok(text) => self.say(format!("{label}{text}")),
            Err(skip) => self.say(format!("{label}(not computed: {})", skip.describe())),
        }
    }

    /// Builds a figure from `Figure::new(id, title)` and draws it: in the terminal (next to the
    /// reference's figure of the same id with `--compare`), to `DIR/<id>.svg` with `--svg DIR`.
    pub fn figure(&self, id: &str, title: &str, build: impl FnOnce(Figure) -> Val<Figure>) {
        let reference = self.reference.iter().find(|f| f.id == id);
        match self.value(|| build(Figure::new(id, title))) {
            Ok(fig) => {
                let shown = match reference {
                    Some(r) => side_by_side(&fig, r),
                    None => fig.clone(),
                };
                self.say(term::render(&shown, self.mode, self.width));
                if let Some(dir) = &self.opts.svg {
                    match crate::svg::write(&fig, dir) {
                        Ok(path) => self.say(format!("wrote {}\n", path.display())),
                        Err(e) => self.say(format!("could not write the SVG: {e}\n")),
                    }
                }
                self.figures.borrow_mut().push(fig);
            }
            Err(skip) => {
                self.say(format!(
                    "[picture: {title}] (not drawn: {})",
                    skip.describe()
                ));
                if let Some(r) = reference {
                    let mut r = r.clone();
                    r.title = format!("{} (the reference only)", r.title);
                    for p in &mut r.panels {
                        p.title = format!("reference: {}", p.title);
                    }
                    self.say(term::render(&r, self.mode, self.width));
                } else {
                    self.say("");
                }
            }
        }
    }

    /// Writes `--figures`, prints what was not computed, and returns the exit status: 0 when
    /// every line was computed, 1 otherwise.
    pub fn finish(self) -> ExitCode {
        if let Some(path) = &self.opts.figures {
            let json = serde_json::to_string(&*self.figures.borrow()).unwrap_or_default();
            if let Err(e) = std::fs::write(path, json) {
                eprintln!("cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        let missing = self.missing.borrow();
        let problems = self.problems.borrow();
        if missing.is_empty() && problems.is_empty() {
            return ExitCode::SUCCESS;
        }
        let id = &self.lesson;
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|f| format!("`{f}`")).collect();
            self.say(format!(
                "\nNot computed yet: the lines above marked \"not computed\" need {}. Implement \
                 them, then run `cargo xtask demo {id}` again (`cargo xtask grade {id}` checks them).",
                names.join(", ")
            ));
        }
        for p in problems.iter() {
            self.say(format!("\nA step failed: {p}"));
        }
        ExitCode::from(1)
    }
}

/// The student's figure with the reference's panels interleaved: `yours: head 0`,
/// `reference: head 0`, `yours: head 1`, …
pub fn side_by_side(ours: &Figure, reference: &Figure) -> Figure {
    let mut fig = ours.clone();
    fig.title = format!("{} (yours, then the reference)", ours.title);
    fig.range = (
        ours.range.0.min(reference.range.0),
        ours.range.1.max(reference.range.1),
    );
    fig.panels.clear();
    let n = ours.panels.len().max(reference.panels.len());
    for k in 0..n {
        if let Some(p) = ours.panels.get(k) {
            let mut p = p.clone();
            p.title = format!("yours: {}", p.title);
            fig.panels.push(p);
        }
        if let Some(p) = reference.panels.get(k) {
            let mut p = p.clone();
            p.title = format!("reference: {}", p.title);
            fig.panels.push(p);
        }
    }
    fig
}
