//! What several integration tests share.

/// Compares `text` with the checked-in fixture at `path` (relative to the repository root),
/// first writing it there when `UPDATE_FIXTURES` is set.
#[allow(dead_code)] // Not every test binary that shares this module keeps a fixture.
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

/// Every lesson under `lessons/`: its id, its lesson.json, and the text of the scenario it
/// runs (a preset of docs/scenarios/ or its own file).
#[allow(dead_code)] // Not every test binary that shares this module reads the lessons.
pub fn lessons() -> Vec<(String, serde_json::Value, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let file = dir.join("lesson.json");
        if !file.exists() {
            continue;
        }
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let id = meta["id"].as_str().unwrap_or("?").to_string();
        let path = match (
            meta["scenario"]["preset"].as_str(),
            meta["scenario"]["file"].as_str(),
        ) {
            (Some(preset), _) => root.join(format!("../docs/scenarios/{preset}.slab")),
            (None, Some(f)) => dir.join(f),
            _ => panic!("{id}: no scenario"),
        };
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{id}: {}: {e}", path.display()));
        out.push((id, meta, text));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The scenario a part of lesson `id` runs: the lesson folder's file named by `part["file"]`
/// (a section's anchor or an exercise that runs another scenario than the lesson's), else
/// `lesson_text`.
#[allow(dead_code)] // Not every test binary that shares this module reads the lessons.
pub fn part_scenario(id: &str, part: &serde_json::Value, lesson_text: &str) -> String {
    match part["file"].as_str() {
        Some(file) => {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../lessons")
                .join(id)
                .join(file);
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{id}: {}: {e}", path.display()))
        }
        None => lesson_text.to_string(),
    }
}
