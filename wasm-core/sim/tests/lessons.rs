//! Every lesson's scenario runs, and every step a lesson names (a section's anchor, an
//! exercise's cursors) is a step of that run. The lesson texts themselves are checked by the
//! web tests (web/lessons/lessons.test.ts).

use slabscope_sim::scenario::{parse, run_with_summary};
use std::path::Path;

fn cursors(value: &serde_json::Value, out: &mut Vec<(String, u64)>, at: &str) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{at}.{k}");
                if matches!(k.as_str(), "cursor" | "answer_at") {
                    let n = v.as_u64().unwrap_or_else(|| panic!("{here} is not a step"));
                    out.push((here.clone(), n));
                }
                cursors(v, out, &here);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                cursors(v, out, &format!("{at}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn every_step_a_lesson_names_is_a_step_of_its_scenario() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let mut lessons = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let file = dir.join("lesson.json");
        if !file.exists() {
            continue;
        }
        lessons += 1;
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let id = meta["id"].as_str().unwrap_or("?").to_string();
        let scenario_path = match (
            meta["scenario"]["preset"].as_str(),
            meta["scenario"]["file"].as_str(),
        ) {
            (Some(preset), _) => root.join(format!("../docs/scenarios/{preset}.slab")),
            (None, Some(f)) => dir.join(f),
            _ => panic!("{id}: no scenario"),
        };
        let text = std::fs::read_to_string(&scenario_path)
            .unwrap_or_else(|e| panic!("{id}: {}: {e}", scenario_path.display()));
        let scenario = parse(&text).unwrap_or_else(|e| panic!("{id}: {e}"));
        let (rec, _) = run_with_summary(&scenario, true).unwrap_or_else(|e| panic!("{id}: {e}"));
        let steps = rec.step_count() as u64;
        let mut named = Vec::new();
        cursors(&meta, &mut named, &id);
        for (at, cursor) in named {
            assert!(
                cursor <= steps,
                "{at} = {cursor}, but the run has {steps} steps"
            );
        }
    }
    assert!(lessons >= 1, "no lesson under lessons/");
}
