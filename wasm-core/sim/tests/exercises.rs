//! Every exercise of every lesson is answered by the simulator: its `answer` names where in the
//! state after `answer_at` steps the answer is read, and the value stored beside it must be
//! what the simulator computes there. Grading a student's answer against that value accepts
//! the stored answer and refuses a wrong one.
//!
//! An answer is read from:
//! - `"from": "snapshot"`: the visualizer's snapshot (with `cache` shown in full), at `path`;
//! - `"from": "slabinfo"`: the `/proc/slabinfo` line of `cache`, column `field`;
//! - `"from": "step"`: the step that led to the cursor, at `path`.
//!
//! A path is fields separated by dots, each followed by any number of `[n]` (the n-th
//! element) or `[field=value]` (the element whose field has that value), e.g.
//! `cache.cpus[0].tid` or `cache.slabs[pfn=0].place.kind`. The web app reads paths the same
//! way (web/lessons/answer.ts).

mod common;

use serde_json::Value;
use slabscope_sim::session::Session;
use slabscope_sim::snapshot::SnapshotQuery;

/// The value at `path` in `value`, or None.
fn at_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut here = value;
    for part in path.split('.') {
        let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !name.is_empty() {
            here = here.get(name)?;
        }
        while let Some(open) = rest.strip_prefix('[') {
            let close = open.find(']')?;
            let selector = &open[..close];
            rest = &open[close + 1..];
            here = match selector.split_once('=') {
                Some((field, want)) => here
                    .as_array()?
                    .iter()
                    .find(|e| e.get(field).is_some_and(|v| plain(v) == want))?,
                None => here.get(selector.parse::<usize>().ok()?)?,
            };
        }
    }
    Some(here)
}

/// A value as text: numbers and strings without quotes.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a student's `given` answer is `expected`: numbers by value (decimal or 0x hex),
/// anything else as text, ignoring case and surrounding space.
fn grade(expected: &Value, given: &str) -> bool {
    let given = given.trim();
    let number = |s: &str| -> Option<u128> {
        let s = s.trim().to_ascii_lowercase();
        match s.strip_prefix("0x") {
            Some(hex) => u128::from_str_radix(hex, 16).ok(),
            None => s.parse().ok(),
        }
    };
    match (number(&plain(expected)), number(given)) {
        (Some(a), Some(b)) => a == b,
        _ => plain(expected).trim().eq_ignore_ascii_case(given),
    }
}

/// The answer an exercise's `answer` names, computed by the simulator.
fn computed(session: &Session, answer_at: usize, answer: &Value, id: &str) -> Value {
    let cache = answer["cache"].as_str().map(str::to_string);
    match answer["from"].as_str() {
        Some("snapshot") => {
            let query = SnapshotQuery { cache, slab: None };
            let snap = serde_json::to_value(session.snapshot(answer_at, &query).unwrap()).unwrap();
            let path = answer["path"].as_str().unwrap();
            at_path(&snap, path)
                .unwrap_or_else(|| panic!("{id}: nothing at {path}"))
                .clone()
        }
        Some("slabinfo") => {
            let files = session.files(answer_at, None).unwrap();
            let name = cache.unwrap_or_else(|| panic!("{id}: slabinfo needs a cache"));
            let columns = [
                "active_objs",
                "num_objs",
                "objsize",
                "objperslab",
                "pagesperslab",
            ];
            let field = answer["field"].as_str().unwrap();
            let column = columns
                .iter()
                .position(|c| *c == field)
                .unwrap_or_else(|| panic!("{id}: no slabinfo column {field}"));
            let line = files
                .slabinfo
                .lines()
                .find(|l| l.split_whitespace().next() == Some(name.as_str()))
                .unwrap_or_else(|| panic!("{id}: no slabinfo line for {name}"));
            Value::from(
                line.split_whitespace()
                    .nth(column + 1)
                    .unwrap()
                    .parse::<u64>()
                    .unwrap(),
            )
        }
        Some("step") => {
            let step =
                serde_json::to_value(session.recorder().step(answer_at - 1).unwrap()).unwrap();
            let path = answer["path"].as_str().unwrap();
            at_path(&step, path)
                .unwrap_or_else(|| panic!("{id}: nothing at {path}"))
                .clone()
        }
        other => panic!("{id}: an answer read from {other:?}"),
    }
}

#[test]
fn every_exercise_is_answered_by_the_simulator() {
    let mut checked = 0;
    for (lesson, meta, text) in common::lessons() {
        let session =
            Session::open(&text).unwrap_or_else(|_| panic!("{lesson}: the scenario does not open"));
        for exercise in meta["exercises"].as_array().unwrap() {
            let id = format!(
                "{}/{}",
                meta["id"].as_str().unwrap(),
                exercise["id"].as_str().unwrap()
            );
            let answer = &exercise["answer"];
            assert!(answer.is_object(), "{id}: no answer");
            let answer_at = exercise["answer_at"].as_u64().unwrap() as usize;
            let value = computed(&session, answer_at, answer, &id);
            let stored = &answer["value"];
            assert!(
                grade(&value, &plain(stored)),
                "{id}: the simulator gives {value}, the lesson stores {stored}"
            );
            // A wrong answer is refused: another number, or other text.
            let wrong = match value.as_u64() {
                Some(n) => (n + 1).to_string(),
                None => format!("{}x", plain(&value)),
            };
            assert!(!grade(&value, &wrong), "{id}: {wrong} is graded right");
            checked += 1;
        }
    }
    assert!(checked >= 2, "no exercises checked");
}

#[test]
fn paths_and_grading_read_as_documented() {
    let v: Value = serde_json::json!({"cache": {"cpus": [{"tid": 640}], "slabs": [{"pfn": 3, "place": {"kind": "cpu_partial"}}]}});
    assert_eq!(at_path(&v, "cache.cpus[0].tid"), Some(&Value::from(640)));
    assert_eq!(
        at_path(&v, "cache.slabs[pfn=3].place.kind"),
        Some(&Value::from("cpu_partial"))
    );
    assert_eq!(at_path(&v, "cache.slabs[pfn=4].place"), None);
    assert!(grade(
        &Value::from("0xffff888000000180"),
        "0xFFFF888000000180"
    ));
    assert!(grade(&Value::from(640), " 640 "));
    assert!(grade(&Value::from(16), "0x10"));
    assert!(!grade(&Value::from(640), "641"));
    assert!(grade(&Value::from("cpu_partial"), "CPU_PARTIAL"));
}
