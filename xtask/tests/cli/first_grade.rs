//! A student's first `cargo xtask grade`, in a terminal: cargo builds the grader before the
//! grader builds the lessons, and both say how far they are from the first seconds.

use crate::support::{self, Scratch};
use grader::build::units::{Units, parse};
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How soon a first grade must show how far its build is.
const WITHIN: Duration = Duration::from_secs(2);

/// `text` without its terminal escapes (`ESC [ … letter`), as a student reads it.
fn readable(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            out.push(c);
        }
    }
    out
}

/// The last line of `shown` (split at `\r` and `\n`, as a terminal redraws) that says how far a
/// build is.
fn how_far(shown: &str) -> Option<Units> {
    readable(shown)
        .split(['\r', '\n'])
        .filter_map(parse)
        .next_back()
}

/// `cargo xtask grade` as a student starts it (the course's alias) in a fresh copy with an empty
/// target folder, on a terminal of its own: cargo's progress line, with the units built of the
/// total, is on the screen within [`WITHIN`]. The build is stopped there: the test costs a
/// couple of seconds of compiling.
#[test]
fn the_first_grade_shows_how_far_its_build_is_within_two_seconds() {
    let s = Scratch::new("first-grade");
    let target = tempfile::tempdir_in(support::temp_root()).unwrap();
    let pty = support::terminal();
    let terminal = || Stdio::from(pty.slave.try_clone().unwrap());
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or("cargo".into()));
    cmd.args(["xtask", "grade"])
        .current_dir(&s.root)
        .env("CARGO_TARGET_DIR", target.path())
        .env("CARGO_NET_OFFLINE", "true")
        .env("TMPDIR", support::temp_root())
        // The course's own alias, not one an instructor set for their shell.
        .env_remove("CARGO_ALIAS_XTASK")
        .stdin(terminal())
        .stdout(terminal())
        .stderr(terminal())
        .process_group(0);
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    // Only the child holds the terminal now: its end is the end of what the screen shows.
    drop(cmd);
    drop(pty.slave);
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let mut screen = std::fs::File::from(pty.master);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = screen.read(&mut buf) {
            if tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut shown = String::new();
    let seen = loop {
        let left = WITHIN.saturating_sub(started.elapsed());
        match rx.recv_timeout(left) {
            Ok(bytes) => shown.push_str(&String::from_utf8_lossy(&bytes)),
            Err(_) => break None,
        }
        if let Some(units) = how_far(&shown) {
            break Some((units, started.elapsed()));
        }
    };
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    let screen = readable(&shown);
    let (units, after) = seen.unwrap_or_else(|| {
        panic!("no progress line within {WITHIN:?}; the screen showed:\n{screen}")
    });
    // A cold build: nothing was built before, and the line counts against the whole build.
    assert!(
        units.total > 0 && units.done < units.total,
        "{units:?} after {after:?}\n{screen}"
    );
}
