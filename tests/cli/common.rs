#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// A temporary home for one test: its own database file and environment.
pub struct Env {
    pub dir: TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("keyhook.db")
    }

    /// `keyhook --db <temp>/keyhook.db` with a clean environment.
    pub fn cmd(&self) -> Command {
        let mut c = bare_cmd();
        c.arg("--db").arg(self.db());
        c
    }

    /// Runs `args` with `--json` and returns (exit code, parsed stdout).
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let out = self.cmd().arg("--json").args(args).output().expect("run");
        let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap_or(-1), v)
    }

    /// Creates a key with `extra` flags and returns its `data` object (with `key`).
    pub fn create_key(&self, name: &str, extra: &[&str]) -> Value {
        let mut args = vec!["keys", "create", "--name", name];
        args.extend_from_slice(extra);
        let (code, v) = self.json(&args);
        assert_eq!(code, 0, "keys create failed: {v}");
        v["data"].clone()
    }
}

/// The binary with `KEYHOOK_*`, `NO_COLOR` and the XDG variables removed.
pub fn bare_cmd() -> Command {
    let mut c = Command::cargo_bin("keyhook").expect("binary");
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("KEYHOOK_") || k == "NO_COLOR" || k.starts_with("XDG_") {
            c.env_remove(&k);
        }
    }
    c
}

/// Every byte of the database and its WAL and shared-memory files.
pub fn database_bytes(db: &Path) -> Vec<u8> {
    let mut all = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        if let Ok(b) = std::fs::read(PathBuf::from(p)) {
            all.extend(b);
        }
    }
    all
}
