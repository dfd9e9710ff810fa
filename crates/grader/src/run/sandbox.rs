//! The sandbox every check process runs in: the grader starts itself again as a supervisor
//! (`xtask __sandbox …`, see [`main`]) that isolates the check, enforces its limits and reports how
//! it ended. Nothing here decides a verdict. Without Landlock (another OS, an old kernel, the
//! student build) checks still run, and the report says `"isolation": "none"`.

use crate::run::isolation::Isolation;
use crate::run::relaunch::own_exe;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Exit code of the inner stage when the sandbox cannot be set up.
pub const SETUP_FAILED: i32 = 97;

/// What a sandboxed process may touch, and for how long it may run.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Files and directories it may read (and execute), besides the system's.
    pub read: Vec<PathBuf>,
    /// Directories it may read and write.
    pub write: Vec<PathBuf>,
    /// More paths the system's folders must not open to it, besides the course, its target
    /// folder and the grader's scratch folders (see [`crate::run::sandbox_paths`]). Not `write`: its
    /// own rule grants those folders every access, wherever they lie.
    pub hide: Vec<PathBuf>,
    /// Time limit, enforced by the supervisor.
    pub timeout: Duration,
    /// Where the supervisor writes how the process ended.
    pub status_file: PathBuf,
    /// Refuse to run when the Landlock rules cannot be enforced.
    pub require: bool,
    /// The process may use the network (a sandboxed `cargo build --offline` does not need it).
    pub network: bool,
    /// The limits of a check process; otherwise those of a build (memory and file size per
    /// process, see `imp::BUILD_DATA`). No core files either way.
    pub check_limits: bool,
    /// In the container mode ([`crate::run::container`]): the user the process runs as, one of its
    /// own for a check, the builder's for a build ([`crate::run::builder`]).
    pub run_as: Option<u32>,
    /// The most the process may have on disk at once (a check's); the supervisor stops it when
    /// over ([`crate::run::disk`]).
    pub disk: Option<crate::run::disk::Budget>,
    /// The machine's isolation, as probed for the grade: the container mode starts the
    /// supervisor with `--container`.
    pub isolation: Isolation,
}

impl Policy {
    /// The supervisor's command line: `xtask __sandbox [policy] -- program args…`.
    pub fn command(&self, program: &Path, args: &[String]) -> std::io::Result<Command> {
        let mut cmd = Command::new(own_exe()?);
        cmd.arg("__sandbox");
        cmd.arg("--timeout-ms")
            .arg(self.timeout.as_millis().to_string());
        cmd.arg("--status").arg(&self.status_file);
        if let Some(disk) = self.disk {
            cmd.arg("--disk-bytes").arg(disk.bytes.to_string());
            cmd.arg("--disk-files").arg(disk.files.to_string());
        }
        cmd.args(rule_args(
            &self.read,
            &self.write,
            &crate::run::sandbox_paths::private_paths(&self.hide),
            [self.require, self.network, self.check_limits],
        ));
        if self.isolation == Isolation::ContainerUid {
            cmd.arg("--container");
            if let Some(uid) = self.run_as {
                cmd.arg("--uid").arg(uid.to_string());
            }
        }
        cmd.arg("--").arg(program).args(args);
        Ok(cmd)
    }
}

/// The rule arguments of `__sandbox`, shared by the grader (to start the supervisor) and the
/// supervisor (to start the inner stage): `--read`/`--write`/`--hide` paths and the flags
/// `--require`, `--network`, `--check-limits` (in that order in `flags`).
fn rule_args(
    read: &[PathBuf],
    write: &[PathBuf],
    hide: &[PathBuf],
    flags: [bool; 3],
) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    for (flag, paths) in [("--read", read), ("--write", write), ("--hide", hide)] {
        for p in paths {
            out.push(flag.into());
            out.push(p.into());
        }
    }
    for (name, on) in ["--require", "--network", "--check-limits"]
        .into_iter()
        .zip(flags)
    {
        if on {
            out.push(name.into());
        }
    }
    out
}

/// The arguments of the hidden `__sandbox` command.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// Run as the inner stage (inside the namespaces).
    #[arg(long)]
    pub inner: bool,
    /// Only report the isolation this machine gives (`landlock-abi-N` or `none`) and exit.
    #[arg(long)]
    pub probe: bool,
    /// Time limit in milliseconds (supervisor).
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Status file (supervisor).
    #[arg(long)]
    pub status: Option<PathBuf>,
    /// Readable paths.
    #[arg(long)]
    pub read: Vec<PathBuf>,
    /// Writable directories.
    #[arg(long)]
    pub write: Vec<PathBuf>,
    /// Paths the system's folders must not open (see `sandbox_paths::open_system`).
    #[arg(long)]
    pub hide: Vec<PathBuf>,
    /// Fail when the rules cannot be enforced.
    #[arg(long)]
    pub require: bool,
    /// Allow the network.
    #[arg(long)]
    pub network: bool,
    /// Apply the limits meant for check processes.
    #[arg(long)]
    pub check_limits: bool,
    /// The container mode: no Landlock and no namespaces; the program runs as `--uid` when given.
    #[arg(long)]
    pub container: bool,
    /// The user (and group) the program runs as, in the container mode.
    #[arg(long)]
    pub uid: Option<u32>,
    /// The most bytes the program may have on disk (supervisor; with `--disk-files`).
    #[arg(long)]
    pub disk_bytes: Option<u64>,
    /// The most files the program may have on disk (supervisor; with `--disk-bytes`).
    #[arg(long)]
    pub disk_files: Option<u64>,
    /// Kill every other process of the calling user and exit (run as a check's user).
    #[arg(long)]
    pub kill_my_processes: bool,
    /// The program and its arguments.
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// How a sandboxed process ended, as the supervisor saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Exit code.
    Exited(i32),
    /// Killed by this signal.
    Signal(i32),
    /// Stopped at the time limit.
    TimedOut,
    /// The sandbox could not be set up.
    SetupFailed,
    /// Stopped for having more on disk than this budget.
    WroteTooMuch(crate::run::disk::Budget),
}

impl Ended {
    /// The status file's text.
    pub fn to_line(self) -> String {
        match self {
            Ended::Exited(c) => format!("exited {c}"),
            Ended::Signal(s) => format!("signal {s}"),
            Ended::TimedOut => "timed-out".into(),
            Ended::SetupFailed => "setup-failed".into(),
            Ended::WroteTooMuch(b) => format!("wrote-too-much {} {}", b.bytes, b.files),
        }
    }

    /// Reads a status file's text.
    pub fn parse(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        if let Some(rest) = text.strip_prefix("wrote-too-much ") {
            let mut numbers = rest.split_whitespace().map(str::parse::<u64>);
            return match (numbers.next(), numbers.next(), numbers.next()) {
                (Some(Ok(bytes)), Some(Ok(files)), None) => {
                    Some(Ended::WroteTooMuch(crate::run::disk::Budget {
                        bytes,
                        files,
                    }))
                }
                _ => None,
            };
        }
        match (words.next()?, words.next()) {
            ("exited", Some(c)) => c.parse().ok().map(Ended::Exited),
            ("signal", Some(s)) => s.parse().ok().map(Ended::Signal),
            ("timed-out", None) => Some(Ended::TimedOut),
            ("setup-failed", None) => Some(Ended::SetupFailed),
            _ => None,
        }
    }
}

/// Runs the hidden `__sandbox` command; returns the process exit code.
///
/// The supervisor (1) starts a new session, so the grader can kill its process group as a whole;
/// (2) on Linux, enters new user, PID and IPC namespaces when the kernel allows it, so that when
/// the next process (PID 1 there) ends the kernel kills every process left inside (a grandchild
/// holding the output pipes, a fork loop) and removes every IPC object they made; (3) starts the
/// *inner* stage (`__sandbox --inner`), which sets rlimits, enters a Landlock domain (read and
/// execute only the system's folders, see [`crate::run::sandbox_paths`], and the check's
/// executable; write only a private folder; no TCP, no signals or abstract sockets outside the
/// domain) and only then starts the check; (4) waits under the time limit and the disk budget
/// ([`crate::run::disk`]), kills the namespace when either runs out, and writes how the check
/// ended to a status file the check cannot reach.
pub fn main(args: SandboxArgs) -> i32 {
    if args.probe {
        println!("{}", imp::probe());
        return 0;
    }
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    if args.kill_my_processes {
        return crate::run::container::kill_my_processes();
    }
    if args.inner {
        imp::inner(&args)
    } else {
        imp::supervise(&args)
    }
}

/// The isolation this machine gives check processes (see [`crate::run::container`] for
/// `container-uid`), probed by starting the sandbox for real: once per grade, where its request
/// is made, and handed on as a value. An answer the probe should never give counts as no
/// isolation.
pub fn probe() -> Isolation {
    let Ok(exe) = own_exe() else {
        return Isolation::None;
    };
    Command::new(exe)
        .args(["__sandbox", "--probe"])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| Isolation::parse(s.trim()))
        .unwrap_or(Isolation::None)
}

#[cfg(all(target_os = "linux", feature = "instructor"))]
mod imp {
    use crate::run::isolation::CONTAINER_MODE;
    use crate::run::sandbox::{Ended, SETUP_FAILED, SandboxArgs};
    use crate::run::sandbox_paths::{SYSTEM, open_system};
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, RulesetAttr,
        RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
    };
    use nix::sys::resource::{Resource, setrlimit};
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::unistd::Pid;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::path::PathBuf;
    use std::process::{Command, ExitStatus};
    use std::time::{Duration, Instant};

    /// Memory (`RLIMIT_DATA`: heap, stacks and other private writable mappings) each process of
    /// a sandboxed build may use. The course's largest crate (`ndarray`) peaks at about 300 MiB
    /// of resident memory in `rustc`, and the lessons' whole build passes with a limit of 1 GiB;
    /// without a limit, `rustc` evaluating a 4 GiB static took 24 GiB before the kernel killed
    /// it.
    const BUILD_DATA: u64 = 4 << 30;

    /// The largest file a process of a sandboxed build may write (`RLIMIT_FSIZE`): rlibs and check
    /// executables are tens of MiB.
    const BUILD_FILE: u64 = 1 << 30;

    fn status_of(status: ExitStatus) -> Ended {
        match (status.code(), status.signal()) {
            (Some(c), _) => Ended::Exited(c),
            (None, Some(s)) => Ended::Signal(s),
            _ => Ended::Signal(0),
        }
    }

    /// The supervisor: session, namespaces, inner stage, time limit, status file.
    pub fn supervise(args: &SandboxArgs) -> i32 {
        let _ = nix::unistd::setsid();
        if args.container {
            return supervise_container(args);
        }
        // New user + PID namespaces: the inner stage becomes PID 1, and everything started under
        // it dies with it. Not available everywhere (then the process groups are killed instead).
        // With a mount namespace too, the inner stage mounts a `/proc` of its own (`own_proc`).
        use nix::sched::CloneFlags as F;
        // Who this is outside: inside, before the map, no one.
        let me = (nix::unistd::geteuid(), nix::unistd::getegid());
        let with_proc =
            // An IPC namespace too: System V objects and POSIX queues go when the check does.
            match nix::sched::unshare(
                F::CLONE_NEWUSER | F::CLONE_NEWPID | F::CLONE_NEWNS | F::CLONE_NEWIPC,
            ) {
                Ok(()) => true,
                Err(_) => {
                    let _ = nix::sched::unshare(F::CLONE_NEWUSER | F::CLONE_NEWPID | F::CLONE_NEWIPC);
                    false
                }
            };
        // The inner stage is this user's root in the namespace, so that it keeps the namespace's
        // capabilities across `exec` (it gives them up before the program starts, `own_proc`).
        let _ = with_proc
            && std::fs::write("/proc/self/setgroups", "deny").is_ok()
            && std::fs::write("/proc/self/uid_map", format!("0 {} 1", me.0)).is_ok()
            && std::fs::write("/proc/self/gid_map", format!("0 {} 1", me.1)).is_ok();
        report(args, run_inner(args))
    }

    /// The container mode's supervisor: the inner stage without namespaces, then every process of
    /// the check's user killed and its files in the shared temporary folders removed, before
    /// the status is written.
    fn supervise_container(args: &SandboxArgs) -> i32 {
        let ended = run_inner(args);
        // A check's user is its own; the builder's is shared by every build of the machine (its
        // cargo and rustc, in the inner stage's process group, are gone already).
        if let Some(uid) = args.uid.filter(|_| args.check_limits) {
            crate::run::container::end_user(uid, &args.write);
        }
        report(args, ended)
    }

    /// Writes how the program `ended` to the status file; the supervisor's exit code.
    fn report(args: &SandboxArgs, ended: Ended) -> i32 {
        if let Some(path) = &args.status {
            let _ = std::fs::write(path, ended.to_line());
        }
        match ended {
            Ended::Exited(c) => c,
            Ended::SetupFailed => SETUP_FAILED,
            _ => 1,
        }
    }

    /// Starts the inner stage with the same rules and waits for it under the time limit; kills
    /// its process group and itself at the end.
    fn run_inner(args: &SandboxArgs) -> Ended {
        let Ok(me) = crate::run::relaunch::own_exe() else {
            return Ended::SetupFailed;
        };
        let mut cmd = Command::new(me);
        cmd.arg("__sandbox").arg("--inner");
        cmd.args(crate::run::sandbox::rule_args(
            &args.read,
            &args.write,
            &args.hide,
            [args.require, args.network, args.check_limits],
        ));
        if args.container {
            // No PID namespace to end them all: the inner stage leads a process group that its
            // program (a build's cargo and rustc) shares, and that group is killed at the end.
            cmd.arg("--container").process_group(0);
        }
        if let Some(uid) = args.uid {
            cmd.arg("--uid").arg(uid.to_string());
        }
        cmd.arg("--").args(&args.command);
        let watch = disk_watch(args);
        let over = || watch.as_ref().filter(|w| w.over()).map(|w| w.budget);
        match cmd.spawn() {
            Err(_) => Ended::SetupFailed,
            Ok(mut child) => {
                let pid = Pid::from_raw(child.id() as i32);
                let deadline = Instant::now() + Duration::from_millis(args.timeout_ms);
                let mut next_look = Instant::now();
                let ended = loop {
                    match child.try_wait() {
                        Ok(Some(status)) => break status_of(status),
                        Ok(None) if Instant::now() >= deadline => break Ended::TimedOut,
                        Ok(None) => {
                            if Instant::now() >= next_look {
                                let looked = Instant::now();
                                if let Some(budget) = over() {
                                    break Ended::WroteTooMuch(budget);
                                }
                                next_look = Instant::now() + next_disk_look(looked.elapsed());
                            }
                            std::thread::sleep(Duration::from_millis(2));
                        }
                        Err(_) => break Ended::Signal(0),
                    }
                };
                // The inner stage's group, then the inner stage itself (PID 1: the namespace goes).
                let _ = killpg(pid, Signal::SIGKILL);
                let _ = kill(pid, Signal::SIGKILL);
                let _ = child.wait();
                // What it wrote since the last look counts too (every process of it has ended).
                match (inner_ended(ended), over()) {
                    (Ended::SetupFailed, _) => Ended::SetupFailed,
                    (_, Some(budget)) => Ended::WroteTooMuch(budget),
                    (ended, None) => ended,
                }
            }
        }
    }

    /// How often the supervisor measures what the check has on disk: often enough that a check
    /// writing as fast as it can gets little past its budget, rarely enough to cost little.
    const DISK_LOOK: Duration = Duration::from_millis(10);

    /// The longest wait between two looks: a check writing at 2 GB/s gets about 100 MB past
    /// its budget at most.
    const DISK_LOOK_MAX: Duration = Duration::from_millis(50);

    /// How long until the next look after one that took `took`: [`DISK_LOOK`], or longer when a
    /// look is slow (a crowded shared folder, many processes in `/proc`), so that the watch takes
    /// at most a twentieth of a core from the checks it watches, up to [`DISK_LOOK_MAX`].
    pub(super) fn next_disk_look(took: Duration) -> Duration {
        (took * 20).clamp(DISK_LOOK, DISK_LOOK_MAX)
    }

    /// The watch on a check's disk use, when it has a budget: its private folders (`--write`) and
    /// in the container mode what its user owns in the shared places.
    fn disk_watch(args: &SandboxArgs) -> Option<crate::run::disk::Watch> {
        let budget = crate::run::disk::Budget {
            bytes: args.disk_bytes?,
            files: args.disk_files?,
        };
        Some(crate::run::disk::Watch {
            private: args.write.clone(),
            uid: args.uid,
            budget,
        })
    }

    /// How the inner stage's exit code reads: its own setup failure, or a check killed by
    /// signal n as 128 + n.
    fn inner_ended(ended: Ended) -> Ended {
        match ended {
            Ended::Exited(SETUP_FAILED) => Ended::SetupFailed,
            Ended::Exited(c) if (129..=192).contains(&c) => Ended::Signal(c - 128),
            other => other,
        }
    }

    fn limits(check: bool) -> nix::Result<()> {
        const MIB: u64 = 1 << 20;
        setrlimit(Resource::RLIMIT_CORE, 0, 0)?;
        if check {
            // A check writes at most small files; it never needs many processes or files.
            setrlimit(Resource::RLIMIT_FSIZE, 16 * MIB, 16 * MIB)?;
            setrlimit(Resource::RLIMIT_NOFILE, 256, 256)?;
            setrlimit(Resource::RLIMIT_AS, 8192 * MIB, 8192 * MIB)?;
            // Counted per user; root is exempt, which is what the PID namespace is for.
            setrlimit(Resource::RLIMIT_NPROC, 256, 256)?;
            // No POSIX message queue at all (root is not exempt): in the container mode one
            // would outlive the check where no `/dev/mqueue` lists it for removal.
            setrlimit(Resource::RLIMIT_MSGQUEUE, 0, 0)?;
        } else {
            // A build: each process (cargo, rustc, the linker) may use `BUILD_DATA` of memory
            // and write files of up to `BUILD_FILE`, so that a student's `static BIG: [u8; 1 <<
            // 32]` fails to compile instead of taking the grading machine's memory and disk.
            setrlimit(Resource::RLIMIT_DATA, BUILD_DATA, BUILD_DATA)?;
            setrlimit(Resource::RLIMIT_FSIZE, BUILD_FILE, BUILD_FILE)?;
        }
        Ok(())
    }

    /// The Landlock domain: returns the ABI it was enforced at, or why not.
    // Stays on `String` (not `anyhow`): `inner` only prints `why` on one `sandbox:` line and
    // exits, and the sandbox's own process has no use for a context chain.
    fn restrict(
        read: &[PathBuf],
        write: &[PathBuf],
        hide: &[PathBuf],
        network: bool,
    ) -> Result<ABI, String> {
        let abi = ABI::V6;
        let fs_read = AccessFs::from_read(abi);
        let mut ruleset = landlock::Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(abi))
            .map_err(|e| e.to_string())?;
        if !network {
            ruleset = ruleset
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(|e| e.to_string())?;
        }
        let status = ruleset
            .scope(Scope::Signal | Scope::AbstractUnixSocket)
            .map_err(|e| e.to_string())?
            .create()
            .map_err(|e| e.to_string())?
            .add_rules(path_beneath_rules(open_system(SYSTEM, hide), fs_read))
            .map_err(|e| e.to_string())?
            .add_rules(path_beneath_rules(
                crate::run::sandbox::existing(read.iter().cloned()),
                fs_read,
            ))
            .map_err(|e| e.to_string())?
            // Programs send output they do not want to /dev/null.
            .add_rules(path_beneath_rules(
                crate::run::sandbox::existing(std::iter::once(PathBuf::from("/dev/null"))),
                AccessFs::from_file(abi),
            ))
            .map_err(|e| e.to_string())?
            .add_rules(path_beneath_rules(
                crate::run::sandbox::existing(write.iter().cloned()),
                AccessFs::from_all(abi),
            ))
            .map_err(|e| e.to_string())?
            .restrict_self()
            .map_err(|e| e.to_string())?;
        match (status.ruleset, status.landlock) {
            (RulesetStatus::NotEnforced, _) => Err("Landlock is not enforced".into()),
            (_, LandlockStatus::Available { effective_abi, .. }) => Ok(effective_abi),
            _ => Err("Landlock is not available".into()),
        }
    }

    /// As PID 1 of the sandbox's PID namespace and its root (the supervisor mapped it), with its
    /// own mount namespace: mounts a `/proc` that shows only the namespace's processes (the
    /// host's showed every process's command line), then gives up the namespace's capabilities
    /// by entering a user namespace of its own with no one mapped, so that nothing it starts can
    /// unmount it or override a file's permissions. Where the kernel does not
    /// allow it (no user namespaces, a container's masked `/proc`), the host's stays (threat
    /// model, docs/instructors.md).
    fn own_proc() -> Result<(), String> {
        use nix::mount::{MsFlags, mount};
        if nix::unistd::getpid().as_raw() != 1 || !nix::unistd::getuid().is_root() {
            return Ok(());
        }
        let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
        let _ = mount(Some("proc"), "/proc", Some("proc"), flags, None::<&str>);
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWUSER)
            .map_err(|e| format!("cannot give up the namespace's capabilities: {e}"))
    }

    /// The inner stage: limits, Landlock, then the program in its own session; waits for it and
    /// exits like it (a signal n as 128 + n).
    pub fn inner(args: &SandboxArgs) -> i32 {
        if let Err(why) = own_proc() {
            eprintln!("sandbox: {why}");
            return SETUP_FAILED;
        }
        if let Err(e) = limits(args.check_limits) {
            eprintln!("sandbox: cannot set limits: {e}");
            return SETUP_FAILED;
        }
        // The container mode's isolation is the check's own user (the probe found no Landlock).
        if !args.container
            && let Err(why) = restrict(&args.read, &args.write, &args.hide, args.network)
            && args.require
        {
            eprintln!("sandbox: {why}");
            return SETUP_FAILED;
        }
        let Some((program, rest)) = args.command.split_first() else {
            return SETUP_FAILED;
        };
        // Again here, for whatever was opened since `main` (the check must get only 0, 1, 2).
        crate::run::sandbox::close_inherited();
        let mut cmd = Command::new(program);
        cmd.args(rest);
        if !args.container {
            cmd.process_group(0);
        }
        if let Some(uid) = args.uid {
            // `std` also drops the supplementary groups when root changes user.
            cmd.uid(uid).gid(uid);
        }
        match cmd.status() {
            Ok(status) => match status_of(status) {
                Ended::Exited(c) => c,
                Ended::Signal(s) => 128 + s,
                _ => 1,
            },
            Err(e) => {
                eprintln!("sandbox: cannot start {program}: {e}");
                SETUP_FAILED
            }
        }
    }

    /// Restricts this process for real and says what it got; without Landlock, whether the
    /// container mode works here.
    pub fn probe() -> String {
        let tmp = std::env::temp_dir();
        match restrict(&[], &[tmp], &[], false) {
            Ok(abi) => format!("landlock-abi-{}", abi as i32),
            Err(_) if crate::run::container::available() => CONTAINER_MODE.into(),
            Err(_) => "none".into(),
        }
    }
}

#[cfg(not(all(target_os = "linux", feature = "instructor")))]
mod imp {
    use crate::run::sandbox::{Ended, SETUP_FAILED, SandboxArgs};
    use std::process::Command;
    use std::time::{Duration, Instant};

    /// Without Linux (or in the student build) there is no sandbox: the program runs under the
    /// time limit only, and a policy that requires the sandbox is refused.
    pub fn supervise(args: &SandboxArgs) -> i32 {
        if args.require {
            return SETUP_FAILED;
        }
        let Some((program, rest)) = args.command.split_first() else {
            return SETUP_FAILED;
        };
        let ended = match Command::new(program).args(rest).spawn() {
            Err(_) => Ended::SetupFailed,
            Ok(mut child) => {
                let deadline = Instant::now() + Duration::from_millis(args.timeout_ms);
                loop {
                    match child.try_wait() {
                        Ok(Some(s)) => break Ended::Exited(s.code().unwrap_or(1)),
                        Ok(None) if Instant::now() >= deadline => {
                            let _ = child.kill();
                            break Ended::TimedOut;
                        }
                        Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                        Err(_) => break Ended::Signal(0),
                    }
                }
            }
        };
        if let Some(path) = &args.status {
            let _ = std::fs::write(path, ended.to_line());
        }
        0
    }

    pub fn inner(_: &SandboxArgs) -> i32 {
        SETUP_FAILED
    }

    pub fn probe() -> String {
        "none".into()
    }
}

/// Marks every file descriptor of this process from 3 up close-on-exec, so that none this process
/// inherited (a caller's `9>>log`, a `make` jobserver) reaches a build or a check: Landlock rules
/// only govern files opened after them. The grader's own pipes are close-on-exec already (std
/// opens them so, and gives a child its three as 0, 1 and 2), so they keep working.
///
/// No jobserver is passed on: a sandboxed build's environment is cleared (it never sees
/// `MAKEFLAGS`), and a local build's cargo, finding the named descriptors closed, uses a jobserver
/// of its own. Called first thing in `main`, while this process has a single thread.
#[cfg(unix)]
pub fn close_inherited() {
    close_fds::set_fds_cloexec(3, &[]);
}

/// Elsewhere no descriptor is inherited by a child unless asked for.
#[cfg(not(unix))]
pub fn close_inherited() {}

/// The paths of `paths` that exist (Landlock rules need an open file descriptor).
#[cfg_attr(
    not(all(target_os = "linux", feature = "instructor")),
    allow(dead_code)
)]
fn existing(paths: impl Iterator<Item = PathBuf>) -> Vec<PathBuf> {
    paths.filter(|p| p.exists()).collect()
}

#[cfg(test)]
mod tests {
    use super::Ended;

    #[test]
    fn status_lines_round_trip() {
        for e in [
            Ended::Exited(0),
            Ended::Exited(101),
            Ended::Signal(9),
            Ended::TimedOut,
            Ended::SetupFailed,
            Ended::WroteTooMuch(crate::run::disk::CHECK),
        ] {
            assert_eq!(Ended::parse(&e.to_line()), Some(e));
        }
        assert_eq!(Ended::parse("wrote-too-much 1"), None);
        assert_eq!(Ended::parse("wrote-too-much 1 2 3"), None);
        assert_eq!(Ended::parse("exited"), None);
        assert_eq!(Ended::parse("nonsense 1"), None);
    }

    #[cfg(all(target_os = "linux", feature = "instructor"))]
    #[test]
    fn a_slow_look_at_the_disk_spaces_out_the_next() {
        use super::imp::next_disk_look;
        use std::time::Duration;
        let quick = next_disk_look(Duration::from_micros(100));
        assert_eq!(quick, Duration::from_millis(10));
        let slow = next_disk_look(Duration::from_millis(2));
        assert_eq!(slow, Duration::from_millis(40));
        let slowest = next_disk_look(Duration::from_millis(30));
        assert_eq!(slowest, Duration::from_millis(50));
    }

    #[test]
    fn the_supervisor_enters_the_container_mode_the_policy_was_given() {
        use super::{Isolation, Policy};
        let args = |isolation| {
            let policy = Policy {
                run_as: Some(4242),
                isolation,
                ..Policy::default()
            };
            let cmd = policy.command(std::path::Path::new("check"), &[]).unwrap();
            cmd.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let container = args(Isolation::ContainerUid);
        let at = container.iter().position(|a| a == "--container").unwrap();
        assert_eq!(container[at + 1..at + 3], ["--uid", "4242"]);
        for other in [Isolation::Landlock { abi: 6 }, Isolation::None] {
            let args = args(other);
            assert!(
                !args.iter().any(|a| a == "--container" || a == "--uid"),
                "{args:?}"
            );
        }
    }
}
