//! `grade` run by hand while `watch` grades the same lesson in another terminal: both take turns
//! on the target folder and the grader's records there, and each prints its whole table.

use crate::student_loop::{EXERCISES, KillOnDrop, Lines};
use crate::support::{Scratch, xtask_process};
use std::process::Stdio;
use std::time::Duration;

/// Saves, each followed at once by a `grade 1` beside the watcher's.
const ROUNDS: usize = 12;

/// The student's loop with a watcher running: save, then `grade 1` while the watcher grades the
/// same save. Two contents saved in turn, so after one build of each the kept builds serve every
/// grade and the rounds cost the checks' runs only; the pause before the grade varies, so the two
/// grades meet at different stages (the build lock, the records, the checks).
#[cfg(unix)]
#[test]
fn every_grade_beside_a_running_watch_prints_its_table() {
    let s = Scratch::new("beside-watch");
    let stub = s.read(EXERCISES);
    let versions = [format!("{stub}\n// saved again\n"), stub];
    let mut child = xtask_process(&s.root, &["watch", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = Lines::new(child.stdout.take().unwrap());
    let _watch = KillOnDrop(child);
    let idle = |l: &str| l.starts_with("Watching exercises/lesson01-why-heads");
    lines.until("the first table", Duration::from_secs(900), idle);
    for round in 0..ROUNDS {
        s.write(EXERCISES, &versions[round % 2]);
        std::thread::sleep(Duration::from_millis((round as u64 * 47) % 250));
        let out = s.xtask(&["grade", "1"]).output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.code() == Some(1)
                && stdout.contains("lesson01 · ")
                && stdout.contains("Total: 0/"),
            "round {round}: {}\n{stdout}\n{stderr}",
            out.status
        );
        let watched = lines.until("the watcher's table", Duration::from_secs(300), idle);
        let table = watched.join("\n");
        assert!(
            table.contains("lesson01 · ") && table.contains("Total: 0/"),
            "round {round}, the watcher:\n{table}"
        );
    }
}
