//! The NEON kernel, checked on an x86-64 machine: the core's unit tests (every GEMM level against
//! `general_mat_mul`, the softmax levels) and `tests/fast_kernels.rs` (the forward with each kernel
//! forced, against the reference composition) are cross-compiled for `aarch64-unknown-linux-gnu`
//! and run under QEMU's user-mode emulator, where `Kernel::Auto` must resolve to `Kernel::Neon`.
//!
//! Skipped, loudly, when the emulator, the cross linker or Rust's aarch64 standard library is
//! missing. To run it (Debian or Ubuntu):
//!
//! ```sh
//! apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
//! rustup target add aarch64-unknown-linux-gnu
//! cargo test -p attention --test neon_emulated
//! ```
//!
//! The first run cross-compiles the crate and its dependencies (about 2 minutes on two cores).
#![cfg(not(target_arch = "aarch64"))]

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "aarch64-unknown-linux-gnu";
const EMULATOR: &str = "qemu-aarch64";
const LINKER: &str = "aarch64-linux-gnu-gcc";

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Whether Rust's standard library for `TARGET` is installed (`rustup target add`).
fn target_std_installed() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc).args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Path::new(&sysroot)
        .join("lib/rustlib")
        .join(TARGET)
        .join("lib")
        .is_dir()
}

#[test]
fn neon_kernels_pass_the_core_tests_under_an_emulator() {
    let missing: Vec<&str> = [
        (
            on_path(EMULATOR).is_none(),
            "qemu-aarch64 (apt-get install qemu-user)",
        ),
        (
            on_path(LINKER).is_none(),
            "aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)",
        ),
        (
            !target_std_installed(),
            "Rust's aarch64 standard library (rustup target add aarch64-unknown-linux-gnu)",
        ),
    ]
    .into_iter()
    .filter_map(|(gone, what)| gone.then_some(what))
    .collect();
    if !missing.is_empty() {
        eprintln!(
            "\n!!!!!! SKIPPED: the NEON kernel was NOT tested under an emulator; missing: {} !!!!!!\n",
            missing.join(", ")
        );
        return;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let sysroot_libs = Path::new("/usr/aarch64-linux-gnu");
    let mut runner = String::from(EMULATOR);
    if sysroot_libs.is_dir() {
        runner.push_str(" -L /usr/aarch64-linux-gnu");
    }
    // A target folder of its own: `cargo test` holds the lock of the one it is running from.
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("aarch64-emulated");
    // In the package root `cargo test` runs this in (not a path compiled in: a copy of the package,
    // such as the students' handout, which reuses this build, tests its own sources).
    let out = Command::new(cargo)
        .args(["test", "--locked", "--target", TARGET, "--lib"])
        .args(["--test", "fast_kernels", "--target-dir"])
        .arg(&target_dir)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", LINKER)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", runner)
        .args(["--", "--nocapture"])
        .output()
        .expect("cargo runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let all = format!("{stdout}\n{stderr}");
    assert!(out.status.success(), "the emulated tests failed:\n{all}");
    // Both binaries ran and passed (a process that exits 0 without this line did not pass).
    assert_eq!(
        stdout.matches("test result: ok.").count(),
        2,
        "expected the unit tests and fast_kernels:\n{all}"
    );
    // The NEON kernel itself ran: not skipped as missing, and `Auto` picked it.
    assert!(
        stdout.contains("test neon_kernels_match_the_reference ... ok"),
        "{all}"
    );
    assert!(
        !all.contains("this CPU has no neon kernel"),
        "the emulated CPU lacked NEON:\n{all}"
    );
}
