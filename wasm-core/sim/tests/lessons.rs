//! Every lesson's scenario runs, and every step a lesson names (a section's anchor, an
//! exercise's cursors) is a step of that run. The lesson texts themselves are checked by the
//! web tests (web/lessons/lessons.test.ts).

mod common;

use slabscope_sim::scenario::{parse, run_with_summary};

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
    let lessons = common::lessons();
    assert!(!lessons.is_empty(), "no lesson under lessons/");
    for (id, meta, text) in lessons {
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
}
