//! What several integration tests share.

/// Compares `text` with the checked-in fixture at `path` (relative to the repository root),
/// first writing it there when `UPDATE_FIXTURES` is set.
pub fn check_fixture(path: &str, text: &str) {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&full, text).unwrap();
    }
    let stored = std::fs::read_to_string(&full)
        .unwrap_or_else(|_| panic!("{path} is missing: run with UPDATE_FIXTURES=1 to write it"));
    assert!(
        stored == text,
        "{path} is stale: run with UPDATE_FIXTURES=1"
    );
}
