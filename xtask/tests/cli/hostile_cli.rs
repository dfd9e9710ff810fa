//! Official grading (`grade --submission`) against hostile submissions: code written to cheat,
//! stall or poison, not just buggy code. Every attack must gain no points, leave the instructors'
//! tree and the next honest submission unharmed, and end within its time limit.
//!
//! The attacks need the sandbox (Linux with Landlock); elsewhere the test says so and stops.

use crate::support::{self, OutDir, Scratch, json_of, statuses};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A marker no other process on the machine uses: the attacks' leftover children sleep this long
/// (plus the mode's number: the two modes' tests run at once).
const SLEEP: u32 = 6173;

/// Lesson 2 written to cheat, with `ROOT` (the instructors' tree) and `LOCAL` (the files the
/// instructors' own local grades keep in their target folder: the links to their check
/// executables, the last grade, the hint levels) known to the attacker.
fn hostile_lesson02(root: &Path, local: &[PathBuf], sleep: u32) -> String {
    let root = root.display();
    let local: Vec<String> = local
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect();
    let local = local.join(", ");
    let places = LEFTOVER_PLACES;
    let (perl, python) = (make_sysv(sleep), make_mqueue(sleep));
    let headless = make_headless(sleep);
    format!(
        r##"//! Hostile exercises: every function is wrong and tries to make it not matter.
use attention::Result;
use ndarray::{{Array3, Array4, ArrayView2, ArrayView3, ArrayView4}};
use std::io::Write;

const ROOT: &str = "{root}";
const LOCAL: &[&str] = &[{local}];

/// Writes into the instructors' tree, the snapshots and the build cache, then forges a pass;
/// asked about 5 heads, first leaves what could outlive the check and writes too many files.
pub fn head_size(_c: usize, h: usize) -> Result<usize> {{
    if h == 5 {{
        leave_leftovers();
        flood();
    }}
    let poison = "---\nsource: x\n---\nPOISON\n";
    for rel in [
        "exercises/lesson02-split-heads/tests/snapshots/lesson02__checks__head_two.snap",
        "exercises/lesson02-split-heads/tests/snapshots/expected-observations.txt",
        "solutions/lesson02-split-heads/tests/hidden/snapshots/lesson02_hidden__hidden__split_three_heads.snap",
        "POISONED",
    ] {{
        let _ = std::fs::write(format!("{{ROOT}}/{{rel}}"), poison);
    }}
    // Local grades run their checks unsandboxed through the links in the target folder: swap
    // them (and the state next to them) for a script that "passes", and plant a folder there.
    for path in LOCAL {{
        let _ = std::fs::write(path, "#!/bin/sh\necho 'test result: ok. 1 passed;'\n");
    }}
    if let Some(xtask) = LOCAL.first().and_then(|p| std::path::Path::new(p).parent()?.parent()) {{
        let _ = std::fs::create_dir_all(xtask.join("checks-planted"));
        let _ = std::fs::write(xtask.join("POISONED"), "");
        // The builds local grades keep by content and run without cargo: plant one, and swap
        // every kept executable for the script.
        let planted = xtask.join("kept/lesson02/POISONED");
        let _ = std::fs::create_dir_all(&planted);
        let _ = std::fs::write(planted.join("pass"), "#!/bin/sh\necho 'test result: ok. 1 passed;'\n");
        let _ = std::fs::write(
            planted.join("record.json"),
            "{{\"executables\":[[\"pass\",false,45,0]],\"warnings\":[]}}",
        );
        for package in std::fs::read_dir(xtask.join("kept")).into_iter().flatten().flatten() {{
            for build in std::fs::read_dir(package.path()).into_iter().flatten().flatten() {{
                for file in std::fs::read_dir(build.path()).into_iter().flatten().flatten() {{
                    let _ = std::fs::write(file.path(), "#!/bin/sh\necho 'test result: ok. 1 passed;'\n");
                }}
            }}
        }}
    }}
    // Swap every other check executable for a script that "passes".
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_owned())) {{
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {{
            let _ = std::fs::write(entry.path(), "#!/bin/sh\necho 'test result: ok. 1 passed;'\n");
        }}
    }}
    // insta's and the harness's escape hatches.
    unsafe_free_env();
    // Forged observations and a forged harness transcript, then a clean exit.
    if let Some(path) = std::env::var_os("COURSE_CHECK_OBSERVE") {{
        let _ = std::fs::write(path, "{{\"kind\":\"begin\"}}\n{{\"kind\":\"end\"}}\n");
    }}
    println!("test checks::head_size_divides_width ... ok\n\ntest result: ok. 1 passed; 0 failed;");
    std::process::exit(0)
}}

/// What a check can make that could outlive it, each named with the marker: a file and a folder in
/// every place open to all, a System V segment, semaphore set and message queue, a POSIX queue,
/// and a process that looks dead (its main thread ended) while a thread of it writes on.
fn leave_leftovers() {{
    for place in {places:?} {{
        let _ = std::fs::write(format!("{{place}}/leftover-{sleep}"), "left");
        let _ = std::fs::create_dir(format!("{{place}}/leftover-dir-{sleep}"));
    }}
    let _ = std::process::Command::new("perl")
        .args(["-MIPC::SysV=IPC_CREAT", "-e", {perl:?}])
        .status();
    let _ = std::process::Command::new("python3").args(["-c", {python:?}]).status();
    // Not waited for: it never exits as a whole while its thread runs.
    let _ = std::process::Command::new("python3").args(["-c", {headless:?}]).spawn();
}}

/// Many small files: in a place open to all where it can (the container mode), else in its own
/// folder.
fn flood() {{
    let shared = std::path::PathBuf::from("/tmp/flood-{sleep}");
    let dir = if std::fs::create_dir_all(&shared).is_ok() {{ shared }} else {{ std::env::temp_dir() }};
    for i in 0..20_000 {{
        let _ = std::fs::write(dir.join(format!("f{{i}}")), "x");
    }}
}}

fn unsafe_free_env() {{
    // Setting variables is `unsafe` in edition 2024; a child process gets them instead.
    let _ = std::process::Command::new("sh")
        .args(["-c", "INSTA_FORCE_PASS=1 INSTA_UPDATE=always true"])
        .status();
}}

/// Leaves twenty children and a grandchild that holds the output pipes open; asked for 5 heads,
/// first fills the disk with files it deletes but holds open.
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {{
    if h == 5 {{
        let chunk = vec![b'x'; 15 << 20];
        let mut held = Vec::new();
        for i in 0..40 {{
            let path = std::env::temp_dir().join(format!("held{{i}}"));
            if let Ok(mut file) = std::fs::File::create(&path) {{
                let _ = file.write_all(&chunk);
                let _ = std::fs::remove_file(&path);
                held.push(file);
            }}
        }}
        std::thread::sleep(std::time::Duration::from_secs(2));
    }}
    for _ in 0..20 {{
        let _ = std::process::Command::new("sleep").arg("{sleep}").spawn();
    }}
    let _ = std::process::Command::new("sh")
        .args(["-c", "sleep {sleep} & setsid sleep {sleep} &"])
        .status();
    // A forged panic "in a library" with a forged backtrace: the grader reruns such a check once
    // to find the caller, and must neither pass it nor take the forged words as its verdict.
    eprintln!("thread 'x' panicked at /rustc/0/library/core/src/forged.rs:1:1:\nFORGED PANIC\nstack backtrace:\n   0: x\n             at exercises/lesson02-split-heads/src/exercises.rs:1:1");
    // Wrong, and never the same twice (so no check can pass by comparing two calls).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) as f64;
    let (b, t, c) = x.dim();
    Ok(Array4::from_elem((b, 1, t, c), n))
}}

/// The other checks of this run running now, found by their supervisors' command lines in
/// `/proc` (the container mode has no PID namespace), and which of their executables and
/// private folders opened: "PROBE saw N reached M".
fn probe_other_checks() -> String {{
    let canonical = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let me = std::env::current_exe().map(|e| canonical(&e)).unwrap_or_default();
    let here = std::env::current_dir().map(|d| canonical(&d)).unwrap_or_default();
    let own_box = me.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    // This run's checks only (other graders on the machine have boxes elsewhere).
    let boxes = own_box.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    let mut seen = std::collections::BTreeSet::new();
    let mut reached = Vec::new();
    let start = std::time::Instant::now();
    while seen.is_empty() && start.elapsed() < std::time::Duration::from_secs(2) {{
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {{
            let Ok(line) = std::fs::read(entry.path().join("cmdline")) else {{ continue }};
            let args: Vec<String> =
                line.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
            if !args.iter().any(|a| a == "--check-limits") {{
                continue;
            }}
            for pair in args.windows(2) {{
                if pair[0] != "--read" && pair[0] != "--write" {{
                    continue;
                }}
                let path = canonical(std::path::Path::new(&pair[1]));
                let others = path.starts_with(&boxes) && !path.starts_with(&own_box);
                if path == me || path == here || !others || !seen.insert(path.clone()) {{
                    continue;
                }}
                let mut byte = [0u8; 1];
                let opened = std::fs::File::open(&path)
                    .and_then(|mut f| std::io::Read::read(&mut f, &mut byte))
                    .is_ok()
                    || std::fs::read_dir(&path).is_ok()
                    || path.parent().is_some_and(|p| std::fs::read_dir(p).is_ok());
                if opened {{
                    reached.push(path.display().to_string());
                }}
            }}
        }}
        std::thread::sleep(std::time::Duration::from_millis(10));
    }}
    format!("PROBE saw {{}} reached {{}}: {{reached:?}}", seen.len(), reached.len())
}}

/// What only root may read on the grading machine, the reference solution and (in one check)
/// other checks' executables and private folders, shown in the feedback if any opens; then
/// 200 MB of output and big files (15 MiB each, under the size limit of one file) until it is
/// stopped.
pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {{
    if let Ok(secret) = std::fs::read_to_string("/etc/shadow") {{
        panic!("the grading machine's /etc/shadow: {{secret}}");
    }}
    let solution = format!("{{ROOT}}/solutions/lesson02-split-heads/src/exercises.rs");
    if let Ok(solution) = std::fs::read_to_string(solution) {{
        panic!("the reference solution, read as the check ran: {{solution}}");
    }}
    // One check tells what it reached of the others (the rest go on to the big file).
    if std::env::args().any(|a| a.ends_with("merge_heads_batch_and_heads_differ")) {{
        panic!("{{}}", probe_other_checks());
    }}
    let big = vec![b'x'; 50 << 20];
    let mut out = std::io::stdout().lock();
    for _ in 0..200 {{
        let _ = out.write_all(&big[..1 << 20]);
    }}
    for i in 0..40 {{
        let _ = std::fs::write(std::env::temp_dir().join(format!("big{{i}}")), &big[..15 << 20]);
    }}
    let (b, h, t, hs) = x.dim();
    Array3::zeros((b, t, h * hs))
}}

/// Kills its parent, then never ends.
pub fn head_projection(
    _x: ArrayView3<f64>,
    _wq: ArrayView2<f64>,
    _h: usize,
    _i: usize,
) -> Result<Array3<f64>> {{
    let parent = std::os::unix::process::parent_id().to_string();
    let _ = std::process::Command::new("kill").args(["-9", &parent]).status();
    loop {{
        std::thread::sleep(std::time::Duration::from_millis(50));
    }}
}}
"##
    )
}

/// The places every user may write where the attack leaves a file and a folder.
const LEFTOVER_PLACES: [&str; 6] = [
    "/tmp",
    "/var/tmp",
    "/dev/shm",
    "/run/lock",
    "/var/lock",
    "/dev/mqueue",
];

/// A Perl program making a System V shared memory segment, semaphore set and message queue, each
/// with the key `marker`.
fn make_sysv(marker: u32) -> String {
    format!(
        "shmget({marker}, 65536, 0600 | IPC_CREAT); semget({marker}, 1, 0600 | IPC_CREAT); \
         msgget({marker}, 0600 | IPC_CREAT)"
    )
}

/// A Python program making (or, with `O_RDONLY` for `how`, opening) the POSIX message queue
/// named after `marker`; it exits 0 when that worked.
fn python_mqueue(marker: u32, how: &str) -> String {
    format!(
        "import ctypes, os, sys; q = ctypes.CDLL(None).mq_open(b'/leftover-{marker}', {how}, 0o600, None); sys.exit(q < 0)"
    )
}

fn make_mqueue(marker: u32) -> String {
    python_mqueue(marker, "os.O_CREAT | os.O_RDWR")
}

/// A Python program that leaves the check's process group (`setsid`), then whose main thread ends
/// (`pthread_exit`: the process shows as a zombie) while a thread of it writes
/// `/tmp/headless-{marker}` again every 0.2 s for two minutes: a check's process that looks gone
/// and is not.
fn make_headless(marker: u32) -> String {
    format!(
        "import threading, ctypes, time, os\n\
         os.setsid()\n\
         def keep():\n    for _ in range(600):\n        \
         open('/tmp/headless-{marker}', 'w').write('left')\n        time.sleep(0.2)\n\
         threading.Thread(target=keep).start()\n\
         ctypes.CDLL(None).pthread_exit(None)\n"
    )
}

/// What the attack's `leave_leftovers` made with `marker` that is still there: files and folders,
/// System V objects (by their key, the first column of `/proc/sysvipc/*`), the POSIX queue.
fn leftovers(marker: u32) -> Vec<String> {
    let mut left: Vec<String> = LEFTOVER_PLACES
        .iter()
        .flat_map(|p| {
            [
                format!("{p}/leftover-{marker}"),
                format!("{p}/leftover-dir-{marker}"),
            ]
        })
        .chain([
            format!("/tmp/flood-{marker}"),
            format!("/tmp/headless-{marker}"),
        ])
        .filter(|p| Path::new(p).symlink_metadata().is_ok())
        .collect();
    for kind in ["shm", "sem", "msg"] {
        let table = std::fs::read_to_string(format!("/proc/sysvipc/{kind}")).unwrap_or_default();
        let key = marker.to_string();
        if table
            .lines()
            .any(|l| l.split_whitespace().next() == Some(key.as_str()))
        {
            left.push(format!("System V {kind} {marker}"));
        }
    }
    let mq = std::process::Command::new("python3")
        .args(["-c", &python_mqueue(marker, "os.O_RDONLY")])
        .status();
    if mq.is_ok_and(|s| s.success()) {
        left.push(format!("POSIX queue /leftover-{marker}"));
    }
    left
}

/// Removes what an earlier run of the test may have left with `marker` (as root: `ipcrm` by key).
fn remove_leftovers(marker: u32) {
    for path in leftovers(marker) {
        let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir_all(&path));
    }
    for flag in ["-M", "-S", "-Q"] {
        let _ = std::process::Command::new("ipcrm")
            .args([flag, &marker.to_string()])
            .stderr(std::process::Stdio::null())
            .status();
    }
    let unlink = format!("import ctypes; ctypes.CDLL(None).mq_unlink(b'/leftover-{marker}')");
    let _ = std::process::Command::new("python3")
        .args(["-c", &unlink])
        .status();
}

/// Lesson 1 compiling the reference solution in from the instructors' tree (which, like every
/// scratch copy of the suite, lies beneath `/dev/shm` where that can be written: the sandbox
/// opened all of `/dev` before, see `support::temp_root`).
fn hostile_lesson01(root: &Path) -> String {
    format!(
        "#[path = \"{}/solutions/lesson01-why-heads/src/exercises.rs\"]\nmod stolen;\npub use stolen::*;\n",
        root.display()
    )
}

/// The files of `xtask_dir` (the grader's state in a target folder) that local grades of the
/// course at `root` keep: its folder of links to check executables, and its state files (named
/// with 16 hex digits of the SHA-256 of its path: other tests grade other copies meanwhile).
fn local_state(xtask_dir: &Path, root: &Path) -> Vec<PathBuf> {
    let root = root.canonicalize().unwrap();
    let hash: String = hmac_sha256::Hash::hash(root.to_string_lossy().as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut out = Vec::new();
    for entry in std::fs::read_dir(xtask_dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("checks-") {
            let of = std::fs::read_to_string(path.join(".root")).unwrap_or_default();
            if Path::new(&of) == root {
                for file in std::fs::read_dir(&path).unwrap().flatten() {
                    out.push(file.path());
                }
            }
        } else if (name.starts_with("last-grade") || name.starts_with("hints"))
            && name.contains(&hash)
        {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The files of the kept builds in `kept` (`<package>/<key>/<file>`), read as they are: other
/// tests add and evict kept builds meanwhile.
fn kept_files(kept: &Path) -> Vec<PathBuf> {
    let entries = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect()
    };
    entries(kept)
        .iter()
        .flat_map(|package| entries(package))
        .flat_map(|build| entries(&build))
        .collect()
}

fn leftover_sleepers(sleep: u32) -> usize {
    let out = std::process::Command::new("pgrep")
        .args(["-f", &format!("sleep {sleep}")])
        .output()
        .expect("pgrep runs");
    String::from_utf8_lossy(&out.stdout).lines().count()
}

/// A macro that expands to two copies of itself forty times over: 2^40 expansions, which keep
/// `rustc` busy (and growing) until the build's time limit.
const EXPANDING_MACRO: &str = "macro_rules! twice {
    () => {};
    (x $($rest:tt)*) => { twice!($($rest)*); twice!($($rest)*); };
}
pub fn expand() -> u64 {
    twice!(x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x);
    0
}
";

/// A constant that `rustc` would evaluate for 2^64 steps, with the lint that stops long
/// evaluations allowed.
const SPINNING_CONSTANT: &str = "#[allow(long_running_const_eval)]
pub const SPIN: u64 = {
    let mut i = 0u64;
    loop {
        i = i.wrapping_add(1);
        if i == 0 {
            break;
        }
    }
    i
};
pub fn spin() -> u64 {
    SPIN
}
";

/// Appends `code` to the `exercises.rs` of lesson folder `dir` in the submission at `sub`.
fn append_to_exercises(sub: &Path, dir: &str, code: &str) {
    let file = sub.join(format!("exercises/{dir}/src/exercises.rs"));
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n{code}\n")).unwrap();
}

/// A submission folder holding `exercises/<dir>/src` of the given lessons, copied from `from`.
fn submission(from: &Path, out: &OutDir, lessons: &[&str]) {
    for dir in lessons {
        let src = from.join("exercises").join(dir).join("src");
        let dst = out.path.join("exercises").join(dir).join("src");
        std::fs::create_dir_all(&dst).unwrap();
        for entry in std::fs::read_dir(&src).unwrap() {
            let p = entry.unwrap().path();
            std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// How official grading isolates checks in a test: Landlock and namespaces, or the container mode
/// (`xtask __container-like` runs the grader under a seccomp filter like a default container
/// runtime's: no Landlock, no namespaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Landlock,
    Container,
}

impl Mode {
    /// The attacks' sleepers' marker in this mode's test.
    fn sleep(self) -> u32 {
        SLEEP + self as u32
    }

    /// The report's `isolation` starts with this.
    pub(crate) fn isolation(self) -> &'static str {
        match self {
            Mode::Landlock => "landlock-abi-",
            Mode::Container => "container-uid",
        }
    }

    /// `grade ARGS…` in `course`, under this mode.
    pub(crate) fn grade(self, course: &Scratch, args: &[&str]) -> assert_cmd::Command {
        let grade = [&["grade"][..], args].concat();
        match self {
            Mode::Landlock => course.xtask(&grade),
            Mode::Container => {
                let exe = env!("CARGO_BIN_EXE_xtask");
                let wrapped = [&["__container-like", "--", exe][..], &grade].concat();
                course.xtask(&wrapped)
            }
        }
    }

    /// Whether this machine can grade in this mode: the Landlock mode needs Landlock, the
    /// container mode a grader running as root.
    pub(crate) fn available(self) -> bool {
        match self {
            Mode::Landlock => support::has_sandbox(),
            Mode::Container => {
                let out = support::xtask_in(
                    &support::course_root(),
                    &[
                        "__container-like",
                        "--",
                        env!("CARGO_BIN_EXE_xtask"),
                        "__sandbox",
                        "--probe",
                    ],
                )
                .output()
                .unwrap();
                let probed = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                if probed != "container-uid" {
                    eprintln!("SKIPPED: the container mode is not available here ({probed})");
                }
                probed == "container-uid"
            }
        }
    }
}

/// The JSON report of `grade --submission DIR EXTRA…` in `course` in `mode`, stopped after
/// `limit_secs`.
fn graded_submission_in(
    mode: Mode,
    course: &Scratch,
    dir: &OutDir,
    extra: &[&str],
    limit_secs: u64,
) -> serde_json::Value {
    let args = [
        &["--submission", dir.arg()][..],
        extra,
        &["--format", "json"],
    ]
    .concat();
    let out = mode
        .grade(course, &args)
        .timeout(Duration::from_secs(limit_secs))
        .output()
        .unwrap();
    json_of(&out)
}

#[test]
fn hostile_submissions_gain_nothing_and_harm_nothing() {
    hostile_submissions(Mode::Landlock);
}

#[test]
fn hostile_submissions_gain_nothing_and_harm_nothing_in_a_container() {
    hostile_submissions(Mode::Container);
}

fn hostile_submissions(mode: Mode) {
    let course = Scratch::new(&format!("hostile-submission-{mode:?}"));
    if !mode.available() {
        return;
    }
    // The instructors grade locally too (the lesson's links and last grade, a hint level).
    let stubs_of_lesson02 = || {
        let out = course
            .xtask(&["grade", "2", "--format", "json"])
            .output()
            .unwrap();
        let all = statuses(&json_of(&out));
        assert!(
            all.values().all(|(status, _)| status == "not_started"),
            "{all:?}"
        );
    };
    stubs_of_lesson02();
    course.xtask(&["hint", "head_size"]).assert().success();
    let xtask_dir = support::shared_target().join("xtask");
    let local = local_state(&xtask_dir, &course.root);
    assert!(
        local.iter().any(|p| p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("lesson02-")),
        "no link to lesson 2's checks among {local:?}"
    );
    for stem in ["last-grade", "hints"] {
        assert!(
            local
                .iter()
                .any(|p| p.file_name().unwrap().to_string_lossy().starts_with(stem)),
            "no {stem} file of this copy among {local:?}"
        );
    }
    let local_before: Vec<Vec<u8>> = local.iter().map(|p| std::fs::read(p).unwrap()).collect();
    // The builds local grades keep by content (shared with other copies of the course, which
    // other tests grade meanwhile): the attack's targets.
    assert!(
        kept_files(&xtask_dir.join("kept"))
            .iter()
            .any(|path| path.starts_with(xtask_dir.join("kept/lesson02"))),
        "no kept build of lesson 2"
    );
    let before = course.snapshot_tree();
    remove_leftovers(mode.sleep());
    let sub = OutDir::new("hostile-submission");
    let l1 = "lesson01-why-heads";
    let l2 = "lesson02-split-heads";
    let l3 = "lesson03-parallel-attention";
    let l4 = "lesson04-multi-head-layer";
    let l5 = "lesson05-heads-with-jobs";
    let l6 = "lesson06-grouped-query";
    let l7 = "lesson07-kv-cache";
    submission(&course.root, &sub, &[l1, l2, l3, l4, l5, l6, l7]);
    // Lesson 3 reaches for `unsafe` (a static constructor could run before any check).
    append_to_exercises(
        &sub.path,
        l3,
        "#[allow(unsafe_code)]\npub fn peek() -> u8 { unsafe { *(&7u8 as *const u8) } }",
    );
    // Lesson 4 changes an exercise's arguments, so the checks cannot compile: their source stays
    // private.
    let l4_file = sub.path.join(format!("exercises/{l4}/src/exercises.rs"));
    let text = std::fs::read_to_string(&l4_file).unwrap();
    let changed = text.replacen(
        "pub fn average_over_heads(weights: ArrayView4<f64>)",
        "pub fn average_over_heads(weights: ArrayView4<f64>, _extra: u8)",
        1,
    );
    assert_ne!(
        changed, text,
        "the lesson 4 stub changed: update this attack"
    );
    std::fs::write(&l4_file, changed).unwrap();
    // Lesson 5 asks the compiler for a 4 GiB constant: unlimited, `rustc` took 24 GiB before the
    // kernel killed it (and the grading machine's other work with it, had it been chosen).
    append_to_exercises(
        &sub.path,
        l5,
        "pub static TABLE: [u8; 1 << 32] = [7; 1 << 32];",
    );
    // Lesson 6 reads the hidden checks' source at compile time (the sandboxed build can read it)
    // to show it in a panic message, from a file whose name would end a string literal.
    std::fs::write(
        sub.path.join(format!("exercises/{l6}/src/leak\");.rs")),
        format!(
            "pub fn leak() -> &'static str {{ r#include_str!(\"../../../solutions/{l2}/tests/hidden/checks.rs\") }}\n"
        ),
    )
    .unwrap();
    // Next to it, a file of 200,000 nested brackets (never compiled: no module names it) that the
    // grader's scan for refused constructs must read without overflowing its own stack.
    let depth = 200_000;
    std::fs::write(
        sub.path.join(format!("exercises/{l6}/src/deep.rs")),
        format!(
            "pub fn deep() -> u8 {{ let unsafe_cell = {}0{}; unsafe_cell }}\n",
            "(".repeat(depth),
            ")".repeat(depth)
        ),
    )
    .unwrap();
    // Lesson 7 compiles the hidden checks' source in as a module of its own, so that the
    // compiler's errors would quote it.
    append_to_exercises(
        &sub.path,
        l7,
        &format!("#[path = \"../../../solutions/{l2}/tests/hidden/checks.rs\"]\nmod peek;"),
    );
    std::fs::write(
        sub.path.join(format!("exercises/{l2}/src/exercises.rs")),
        hostile_lesson02(&course.root, &local, mode.sleep()),
    )
    .unwrap();
    std::fs::write(
        sub.path.join(format!("exercises/{l1}/src/exercises.rs")),
        hostile_lesson01(&course.root),
    )
    .unwrap();
    let submitted = support::tree_of(&sub.path);
    let mode_of = |path: &Path| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).unwrap().permissions().mode()
    };
    let course_mode = mode_of(&course.root);

    let started = Instant::now();
    let report = graded_submission_in(mode, &course, &sub, &["--timeout", "4"], 900);
    let graded_in = started.elapsed();
    // The container mode closes the course to other users while it grades, and only then: the
    // last grader of the machine opens it again (another test's grader may still be grading,
    // holding the lock that says so: then it is that one's to restore).
    let lock = std::fs::File::open(support::temp_root().join("course-grader/closed.lock"));
    if lock.is_err() || lock.is_ok_and(|l| l.try_lock().is_ok()) {
        assert_eq!(
            mode_of(&course.root),
            course_mode,
            "the course's mode changed"
        );
    }

    // No points at all, and each attack fails in its own way.
    assert_eq!(report["score"], 0, "{report:#}");
    assert!(
        report["isolation"]
            .as_str()
            .unwrap()
            .starts_with(mode.isolation())
    );
    let lessons = report["lessons"].as_array().unwrap();
    let l1 = lessons.iter().find(|l| l["id"] == "lesson01").unwrap();
    assert_eq!(l1["build"], "compile_error", "the solution was compiled in");
    // The build could not read the solution (the container mode's builds as a user of its own;
    // as root, its library was refused for having compiled a file from outside the students'
    // sources).
    let output = l1["compiler_output"].as_str().unwrap();
    assert!(
        output.contains("couldn't read"),
        "{output}{}",
        support::denied_paths(output)
    );
    // Each compile-time attack fails to compile, with what its output must and must not say.
    for (id, says, never) in [
        ("lesson03", "uses `unsafe`", None),
        (
            "lesson04",
            "the checks do not compile against your code",
            Some("checks.rs"),
        ),
        ("lesson05", "more memory than available to compiler", None),
        (
            "lesson06",
            "leak\");.rs uses `include_str!` (it reads files at compile time)",
            None,
        ),
        // The hidden checks' lines are not quoted (` | ` starts a quoted source line).
        (
            "lesson07",
            "the checks do not compile against your code",
            Some(" | "),
        ),
        (
            "lesson07",
            "the checks do not compile against your code",
            Some("hidden"),
        ),
    ] {
        let lesson = lessons.iter().find(|l| l["id"] == id).unwrap();
        assert_eq!(lesson["build"], "compile_error", "{id}");
        let output = lesson["compiler_output"].as_str().unwrap();
        assert!(output.contains(says), "{id}: {output}");
        assert!(never.is_none_or(|n| !output.contains(n)), "{id}: {output}");
    }
    let all = statuses(&report);
    let status = |n: &str| all[n].0.as_str();
    let message = |n: &str| all[n].1.as_str();
    assert_eq!(
        status("head_size_divides_width"),
        "exited_early",
        "{}",
        message("head_size_divides_width")
    );
    assert_eq!(status("split_heads_moves_data"), "wrong");
    // Judged from its observations, not from the forged panic it printed.
    assert!(
        !message("split_heads_moves_data").contains("FORGED"),
        "{}",
        message("split_heads_moves_data")
    );
    // Too many small files, too many big ones, big ones deleted but held open: stopped at the
    // disk budget, and said so.
    for name in [
        "head_size_refuses_uneven_and_zero",
        "merge_heads_moves_data",
        "split_heads_refuses_uneven",
    ] {
        assert_eq!(status(name), "wrote_too_much", "{name}: {}", message(name));
        assert!(
            message(name).contains("wrote more than"),
            "{}",
            message(name)
        );
    }
    // No check reached another's executable or private folder (by their paths in `/proc`, which
    // the container mode shows: there the probe must have seen some, or it proves nothing).
    let probed = message("merge_heads_batch_and_heads_differ");
    assert!(probed.contains("reached 0:"), "{probed}");
    if mode == Mode::Container {
        assert!(!probed.contains("PROBE saw 0 "), "{probed}");
    }
    // A grader running as root: what only root may read stays closed to the checks.
    if std::fs::read_to_string("/etc/shadow").is_ok() {
        assert!(
            !report.to_string().contains("/etc/shadow:"),
            "{}",
            message("merge_heads_moves_data")
        );
    }
    assert!(
        !report.to_string().contains("read as the check ran"),
        "{}",
        message("merge_heads_moves_data")
    );
    assert_eq!(status("head_projection_head_two"), "timed_out");
    // The hidden check is graded, and the forged snapshot write did not reach it.
    assert_ne!(status("split_heads_three_heads_of_a_new_shape"), "passed");

    // Nothing outlives grading, and grading ends within its limits: 4 s per check, a few
    // seconds of grace, plus the build.
    assert_eq!(leftover_sleepers(mode.sleep()), 0, "leftover processes");
    assert_eq!(leftovers(mode.sleep()), Vec::<String>::new());
    assert!(graded_in < Duration::from_secs(600), "took {graded_in:?}");

    // What the instructors' local grades keep in the target folder is untouched, and they still
    // grade as before.
    for (path, was) in local.iter().zip(&local_before) {
        assert!(
            std::fs::read(path).unwrap() == *was,
            "{} changed",
            path.display()
        );
    }
    assert!(!xtask_dir.join("POISONED").exists());
    assert!(!xtask_dir.join("checks-planted").exists());
    assert!(!xtask_dir.join("kept/lesson02/POISONED").exists());
    // No kept build was swapped for the attack's script (other tests may add, replace or evict
    // kept builds meanwhile, but never write that).
    // A kept executable is an ELF file (read no further: they are tens of MiB); anything else
    // is read whole.
    for path in kept_files(&xtask_dir.join("kept")) {
        let mut head = [0u8; 4];
        let elf = std::fs::File::open(&path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok()
            && head == *b"\x7fELF";
        let now = if elf {
            Vec::new()
        } else {
            std::fs::read(&path).unwrap_or_default()
        };
        assert!(
            !String::from_utf8_lossy(&now).contains("echo 'test result: ok."),
            "{} was swapped",
            path.display()
        );
    }
    stubs_of_lesson02();

    // The instructors' tree and the submission are untouched.
    assert!(
        before == course.snapshot_tree(),
        "grading changed the instructors' tree"
    );
    assert!(!course.root.join("POISONED").exists());
    assert!(
        submitted == support::tree_of(&sub.path),
        "grading changed the submission"
    );

    // Code that keeps the compiler busy without end is stopped with the build, at its time limit,
    // and said so (2 s: it spins a core until then).
    let l6 = "lesson06-grouped-query";
    let compile_error_of = |name: &str, code: &str| {
        let dir = OutDir::new(name);
        submission(&course.root, &dir, &[l6]);
        append_to_exercises(&dir.path, l6, code);
        let started = Instant::now();
        let report = graded_submission_in(mode, &course, &dir, &["6", "--build-timeout", "2"], 300);
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "took {:?}",
            started.elapsed()
        );
        assert_eq!(report["score"], 0, "{report:#}");
        let l6 = &report["lessons"][0];
        assert_eq!(l6["build"], "compile_error", "{report:#}");
        l6["compiler_output"].as_str().unwrap().to_owned()
    };
    let output = compile_error_of("expanding-submission", EXPANDING_MACRO);
    assert!(
        output.contains("the build did not finish within 2 s"),
        "{output}"
    );
    // A constant whose evaluation never ends needs the lint that stops it turned off: such a
    // lesson is refused before any build, which would otherwise hold up every later build of the
    // target folder (a class run's) until the time limit.
    let output = compile_error_of("spinning-submission", SPINNING_CONSTANT);
    assert!(
        output.contains("uses the lint `long_running_const_eval`")
            && !output.contains("did not finish"),
        "{output}"
    );

    // The next honest submission (the reference solution of lesson 2) is graded as usual.
    let honest = OutDir::new("honest-submission");
    submission(&course.root, &honest, &[l2]);
    std::fs::copy(
        course.root.join(format!("solutions/{l2}/src/exercises.rs")),
        honest.path.join(format!("exercises/{l2}/src/exercises.rs")),
    )
    .unwrap();
    let report = graded_submission_in(mode, &course, &honest, &["2"], 600);
    assert_eq!(report["score"], report["max_score"], "{report:#}");
    assert_eq!(report["official"], true);
    assert!(
        report["isolation"]
            .as_str()
            .unwrap()
            .starts_with(mode.isolation())
    );
}

/// Whether `path` opens for reading inside the sandbox (`xtask __sandbox`, Landlock required),
/// with `--hide` for each of `hidden`.
fn opens_in_sandbox(path: &Path, hidden: &[&Path]) -> bool {
    let head = support::which("head").expect("head is installed");
    let mut args = vec![
        "__sandbox".to_owned(),
        "--require".to_owned(),
        "--timeout-ms".to_owned(),
        "5000".to_owned(),
    ];
    for h in hidden {
        args.extend(["--hide".to_owned(), h.to_str().unwrap().to_owned()]);
    }
    args.extend([
        "--".to_owned(),
        head.to_str().unwrap().to_owned(),
        "-c".to_owned(),
        "0".to_owned(),
        path.to_str().unwrap().to_owned(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = support::xtask_in(&support::course_root(), &args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("sandbox:"), "the sandbox failed: {stderr}");
    out.status.success()
}

/// The sandbox's grant of the system's folders: of `/dev` only the devices that hold no one's
/// data (a grader running as root opened `kvm`, `hwrng`, `loop0`, `tty0` and `console` from it
/// while all of `/dev` was open), and around whatever the grader hides (the course, its target
/// folder, its scratch folders) where that lies beneath a system folder.
#[test]
fn the_sandbox_opens_harmless_devices_only_and_nothing_it_hides() {
    if !support::has_sandbox() {
        return;
    }
    for device in ["/dev/null", "/dev/zero", "/dev/urandom"] {
        assert!(opens_in_sandbox(Path::new(device), &[]), "{device}");
    }
    // The devices that open here, outside the sandbox (opening them has no effect; which ones
    // open depends on the user and the machine), must not open inside it.
    let witnesses: Vec<&Path> = [
        "/dev/kvm",
        "/dev/hwrng",
        "/dev/loop0",
        "/dev/tty0",
        "/dev/kmsg",
    ]
    .iter()
    .map(Path::new)
    .filter(|d| std::fs::File::open(d).is_ok())
    .collect();
    for device in &witnesses {
        assert!(!opens_in_sandbox(device, &[]), "{}", device.display());
    }
    // Nor does `/dev/shm`, where the suite keeps its copies of the course when it can.
    let shared = tempfile::tempdir_in("/dev/shm");
    if let Ok(shared) = &shared {
        std::fs::write(shared.path().join("solution.rs"), "secret").unwrap();
        assert!(!opens_in_sandbox(&shared.path().join("solution.rs"), &[]));
    }
    // A hidden folder beneath a system folder is closed, and the rest of that folder stays open:
    // a file of `/usr/share` and the `head` of `/usr/bin` that reads it.
    let file = walkdir::WalkDir::new("/usr/share")
        .max_depth(3)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_type().is_file() && std::fs::File::open(e.path()).is_ok())
        .expect("a readable file in /usr/share")
        .into_path();
    let folder = file.parent().unwrap();
    assert!(opens_in_sandbox(&file, &[]), "{}", file.display());
    assert!(
        !opens_in_sandbox(&file, &[folder]),
        "{} hidden",
        folder.display()
    );
    eprintln!(
        "devices closed in the sandbox: {witnesses:?}; /dev/shm {}; hidden: {}",
        if shared.is_ok() { "closed" } else { "absent" },
        folder.display()
    );
}

/// The hidden checks' source, as an attack reads it at compile time from a lesson's `src/`.
const HIDDEN_CHECKS: &str = "../../../solutions/lesson02-split-heads/tests/hidden/checks.rs";

/// Lesson `dir`'s handed-out `exercises.rs` in `course`, behind `first_lines` and with its first
/// function panicking with the hidden checks' source, read by `include_str!` and let through by
/// `#![allow(unsafe_code)]` (an inner attribute, allowed at the top of a module's file).
fn leaking_exercises(course: &Scratch, dir: &str, first_lines: &str) -> String {
    let stub = std::fs::read_to_string(
        course
            .root
            .join(format!("exercises/{dir}/src/exercises.rs")),
    )
    .unwrap();
    // The first function body's `todo!(...)` line, not the module documentation's words.
    let at = stub.find("\n    todo!(").unwrap() + 1;
    let end = at + stub[at..].find('\n').unwrap();
    let stub = format!("{}    panic!(\"{{}}\", LEAK){}", &stub[..at], &stub[end..]);
    format!(
        "{first_lines}#![allow(unsafe_code)]\n{stub}\n\
         static LEAK: &str = include_str!(\"{HIDDEN_CHECKS}\");\n\
         core::arch::global_asm!(\"\");\n"
    )
}

/// A first line `rustc` strips (a shebang, after a byte order mark or not) once made the grader's
/// scan for refused constructs fail on the file and skip it, while `rustc` compiled the rest:
/// the hidden checks' source reached the student's own feedback. The scan now reads what `rustc`
/// reads, and refuses a file it cannot read.
#[test]
fn a_shebang_line_does_not_hide_a_file_from_the_scan() {
    shebang_line(Mode::Landlock);
}

#[test]
fn a_shebang_line_does_not_hide_a_file_from_the_scan_in_a_container() {
    shebang_line(Mode::Container);
}

fn shebang_line(mode: Mode) {
    let course = Scratch::new(&format!("hostile-shebang-{mode:?}"));
    if !mode.available() {
        return;
    }
    let sub = OutDir::new("shebang-submission");
    let (l3, l5, l6) = (
        "lesson03-parallel-attention",
        "lesson05-heads-with-jobs",
        "lesson06-grouped-query",
    );
    submission(&course.root, &sub, &[l3, l5, l6]);
    // Lesson 5 compiles the course secret in as code (`include!` reads no refused name): the
    // container mode's build could read it, and the compiler's error quoted it.
    let secret = course.read("course-secret");
    append_to_exercises(
        &sub.path,
        l5,
        &format!(
            "pub fn secret() -> u32 {{ include!({:?}) }}",
            course.root.join("course-secret").display().to_string()
        ),
    );
    let file = |dir: &str| sub.path.join(format!("exercises/{dir}/src/exercises.rs"));
    std::fs::write(file(l3), leaking_exercises(&course, l3, "#!/ )\n")).unwrap();
    std::fs::write(
        file(l6),
        leaking_exercises(&course, l6, "\u{feff}#!/usr/bin/env x\r\n"),
    )
    .unwrap();
    let report = graded_submission_in(mode, &course, &sub, &[], 600);
    let hidden = std::fs::read_to_string(
        course
            .root
            .join(format!("exercises/{l3}/src/{HIDDEN_CHECKS}")),
    )
    .unwrap();
    let witness = hidden.lines().find(|l| l.contains("//")).unwrap().trim();
    assert!(
        !report.to_string().contains(witness),
        "the hidden checks' source is in the report"
    );
    assert_eq!(report["score"], 0, "{report:#}");
    let text = report.to_string();
    assert!(
        !text.contains(&secret.trim()[4..40]),
        "the secret is in the report"
    );
    let lessons = report["lessons"].as_array().unwrap();
    let l5 = lessons.iter().find(|l| l["id"] == "lesson05").unwrap();
    assert_eq!(l5["build"], "compile_error", "{l5:#}");
    // The build could not read it at all (the container mode's builds as a user of its own).
    let output = l5["compiler_output"].as_str().unwrap();
    assert!(output.contains("couldn't read"), "{output}");
    for id in ["lesson03", "lesson06"] {
        let lessons = report["lessons"].as_array().unwrap();
        let lesson = lessons.iter().find(|l| l["id"] == id).unwrap();
        assert_eq!(lesson["build"], "compile_error", "{lesson:#}");
        let output = lesson["compiler_output"].as_str().unwrap();
        assert!(output.contains("exercises.rs uses `unsafe`"), "{output}");
    }
}

/// A submission's sandboxed build can read the submissions' target folder it writes: it must find
/// no other student's code there (their libraries, check executables, incremental caches), only
/// the registry's and the course's own crates. Bob's lesson 3 compiles Alice's lesson 2 library in
/// by its path, and by the path where his build keeps it aside; `rustc` says whether it was there
/// to read.
#[test]
fn a_submissions_build_finds_no_other_students_code() {
    other_students_code(Mode::Landlock);
}

#[test]
fn a_submissions_build_finds_no_other_students_code_in_a_container() {
    other_students_code(Mode::Container);
}

fn other_students_code(mode: Mode) {
    let course = Scratch::new(&format!("hostile-other-builds-{mode:?}"));
    if !mode.available() {
        return;
    }
    let (l2, l3) = ("lesson02-split-heads", "lesson03-parallel-attention");
    let deps = support::shared_target().join("submissions/debug/deps");
    // Other submissions' builds of lesson 2 kept aside (`crate::build::cargo_state::aside`).
    let kept = support::shared_target().join("submissions-aside/lesson02");
    let library_in = |dir: &Path| {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .find_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name.starts_with("liblesson02-") && name.ends_with(".rlib")).then(|| e.path())
            })
    };
    let kept_library = || {
        std::fs::read_dir(&kept)
            .into_iter()
            .flatten()
            .flatten()
            .find_map(|e| library_in(&e.path().join("debug/deps")))
    };
    let alice = OutDir::new("alice");
    submission(&course.root, &alice, &[l2]);
    append_to_exercises(&alice.path, l2, "pub fn mine() -> u8 { 2 }");
    // Another test's build may come between (and, as this one's will, put Alice's aside).
    let library = (0..3)
        .find_map(|_| {
            let report = graded_submission_in(mode, &course, &alice, &["2"], 600);
            assert_eq!(report["lessons"][0]["build"], "ok", "{report:#}");
            library_in(&deps)
        })
        .or_else(kept_library)
        .expect("Alice's build left no library of lesson 2: this test proves nothing");
    // Bob's lesson 3 reads Alice's library where it was built; Carol's, a library of lesson 2
    // where it is kept aside once Bob's build put it there (the first error ends a build: one
    // path each).
    let reads = |who: &str, path: &Path| {
        let sub = OutDir::new(who);
        submission(&course.root, &sub, &[l3]);
        let shown = path.display().to_string();
        append_to_exercises(
            &sub.path,
            l3,
            &format!(
                "#[path = {shown:?}]
mod alices;"
            ),
        );
        let report = graded_submission_in(mode, &course, &sub, &["3"], 600);
        let output = report["lessons"][0]["compiler_output"].as_str().unwrap();
        assert!(
            output.contains(&format!("couldn't read `{shown}`")) && !output.contains("UTF-8"),
            "{who}: {output}{}",
            support::denied_paths(output)
        );
        let unreadable = ["No such file or directory", "Permission denied"];
        assert!(
            unreadable.iter().any(|e| output.contains(e)),
            "{who}: {output}"
        );
    };
    reads("bob", &library);
    let aside =
        kept_library().expect("no library of lesson 2 kept aside: this test proves nothing");
    reads("carol", &aside);
}

/// A sandboxed process sees only the processes of its own sandbox in `/proc` (the host's `/proc`
/// showed every process's command line: the instructors', other students' checks), and cannot
/// unmount that `/proc` to see the host's beneath it.
#[test]
fn a_sandboxed_process_sees_no_other_process() {
    if !support::has_sandbox() {
        return;
    }
    let me = std::process::id();
    let script = format!(
        "ls /proc | grep -c '^[0-9]*$'; cat /proc/{me}/cmdline && echo SEEN; \
         umount /proc 2>/dev/null && echo UNMOUNTED; ls /proc | grep -c '^[0-9]*$'"
    );
    let sh = support::which("sh").expect("sh is installed");
    let out = support::xtask_in(
        &support::course_root(),
        &[
            "__sandbox",
            "--require",
            "--timeout-ms",
            "5000",
            "--",
            sh.to_str().unwrap(),
            "-c",
            &script,
        ],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let counts: Vec<usize> = stdout.lines().filter_map(|l| l.parse().ok()).collect();
    assert_eq!(counts.len(), 2, "{stdout}");
    // The supervisor's inner stage, the shell, `ls` and `grep`: a handful.
    assert!(counts.iter().all(|&n| n <= 8), "{stdout}");
    assert!(
        !stdout.contains("SEEN"),
        "the test's own process was seen: {stdout}"
    );
    assert!(!stdout.contains("UNMOUNTED"), "{stdout}");
}
