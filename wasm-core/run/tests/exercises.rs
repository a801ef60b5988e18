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
use slabscope_run::session::Session;
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
        Some("sysfs") => {
            let name = cache.unwrap_or_else(|| panic!("{id}: sysfs needs a cache"));
            let files = session.files(answer_at, Some(&name)).unwrap();
            let file = answer["file"].as_str().unwrap();
            let contents = files
                .sysfs
                .unwrap_or_else(|e| panic!("{id}: no /sys/kernel/slab/{name}/: {e}"))
                .into_iter()
                .find(|(attr, _)| attr == file)
                .unwrap_or_else(|| panic!("{id}: no /sys/kernel/slab/{name}/{file}"))
                .1;
            sysfs_field(&contents, answer["key"].as_str())
                .unwrap_or_else(|| panic!("{id}: {file} ({contents:?}) has no such field"))
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

/// A /sys/kernel/slab file's first field (the total `show_slab_objects()` prints before the
/// per-node fields), or the one after `<key>=`; a number when it is one (as web/lessons/format.ts
/// `sysfsField` reads it).
fn sysfs_field(contents: &str, key: Option<&str>) -> Option<Value> {
    let mut fields = contents.split_whitespace();
    let raw = match key {
        None => fields.next()?,
        Some(k) => fields.find_map(|f| f.strip_prefix(k)?.strip_prefix('='))?,
    };
    if raw.is_empty() {
        return None;
    }
    Some(
        raw.parse::<u64>()
            .map_or_else(|_| Value::from(raw), Value::from),
    )
}

#[test]
fn a_sysfs_field_is_the_total_or_the_keyed_value() {
    assert_eq!(sysfs_field("3 N0=2 N1=1\n", None), Some(Value::from(3)));
    assert_eq!(
        sysfs_field("3 N0=2 N1=1\n", Some("N1")),
        Some(Value::from(1))
    );
    assert_eq!(
        sysfs_field("16(1) C1=16(1)", Some("C1")),
        Some(Value::from("16(1)"))
    );
    assert_eq!(sysfs_field("3 N0=2", Some("N2")), None);
}

#[test]
fn every_exercise_is_answered_by_the_simulator() {
    let mut checked = 0;
    for (lesson, meta, text) in common::lessons() {
        for exercise in meta["exercises"].as_array().unwrap() {
            let text = common::part_scenario(&lesson, exercise, &text);
            let session = Session::open(&text)
                .unwrap_or_else(|_| panic!("{lesson}: the scenario does not open"));
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
            assert_answerable(exercise, &value, &id);
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

/// The answer can be given the way the exercise offers: it is one of the `choices`, or what a
/// click on an object (its address) or a slab (its pfn) in the player gives.
fn assert_answerable(exercise: &Value, value: &Value, id: &str) {
    if let Some(choices) = exercise["choices"].as_array() {
        assert!(
            choices.iter().any(|c| grade(value, &plain(c))),
            "{id}: the simulator gives {value}, which is not one of the choices {choices:?}"
        );
    }
    match exercise["pick"].as_str() {
        Some("object") => assert!(
            value.as_str().is_some_and(|s| s.starts_with("0x")),
            "{id}: a picked object's answer is an address, not {value}"
        ),
        Some("slab") => assert!(value.is_u64(), "{id}: a picked slab's answer is a pfn"),
        Some("step") => assert!(
            value.is_u64(),
            "{id}: a picked step's answer is a step number"
        ),
        Some(other) => panic!("{id}: no pick {other}"),
        None => {}
    }
}

/// `text` with each `[from, to]` edit made, or why an edit cannot be made: `from` must be in
/// the text exactly once (as web/lessons/variant.ts `applyVariant` requires).
fn apply_variant(text: &str, edits: &Value) -> Result<String, String> {
    let mut out = text.to_string();
    for edit in edits.as_array().ok_or("a variant is a list of edits")? {
        let (Some(from), Some(to)) = (edit[0].as_str(), edit[1].as_str()) else {
            return Err(format!("{edit} is not a [from, to] pair of texts"));
        };
        if from.is_empty() || out.matches(from).count() != 1 {
            return Err(format!("{from:?} is not in the scenario exactly once"));
        }
        out = out.replacen(from, to, 1);
    }
    Ok(out)
}

/// Every seeded variant of an exercise runs, takes the same kernel path (function and path of
/// every step) as the lesson's own scenario up to the step that answers it, so the question
/// and the steps it names stay true, and gives another answer than the lesson's own: a
/// variant that did not change the numbers would be of no use to a class.
#[test]
fn every_variant_keeps_the_question_and_moves_the_answer() {
    let mut variants = 0;
    for (lesson, meta, text) in common::lessons() {
        for exercise in meta["exercises"].as_array().unwrap() {
            let Some(list) = exercise["variants"].as_array() else {
                continue;
            };
            let text = common::part_scenario(&lesson, exercise, &text);
            let base = Session::open(&text).unwrap();
            let id = format!("{lesson}/{}", exercise["id"].as_str().unwrap());
            let answer_at = exercise["answer_at"].as_u64().unwrap() as usize;
            let cursor = exercise["cursor"].as_u64().unwrap_or(0) as usize;
            let own = computed(&base, answer_at, &exercise["answer"], &id);
            let mut seen = vec![own.clone()];
            for (k, edits) in list.iter().enumerate() {
                let vid = format!("{id} variant {}", k + 1);
                let edited = apply_variant(&text, edits).unwrap_or_else(|e| panic!("{vid}: {e}"));
                let session = Session::open(&edited)
                    .unwrap_or_else(|e| panic!("{vid}: the scenario does not run: {e:?}"));
                assert!(
                    session.recorder().step_count() >= answer_at.max(cursor),
                    "{vid}: the run is shorter than the exercise's steps"
                );
                for i in 0..answer_at {
                    let (a, b) = (
                        base.recorder().step(i).unwrap(),
                        session.recorder().step(i).unwrap(),
                    );
                    assert_eq!(
                        (a.function, a.path, &a.caption.key),
                        (b.function, b.path, &b.caption.key),
                        "{vid}: step {} takes another path than the lesson's",
                        i + 1
                    );
                }
                let value = computed(&session, answer_at, &exercise["answer"], &vid);
                assert_answerable(exercise, &value, &vid);
                assert!(
                    !grade(&own, &plain(&value)),
                    "{vid}: gives the lesson's own answer {own}"
                );
                seen.push(value);
                variants += 1;
            }
            eprintln!("{id}: answers {seen:?}");
        }
    }
    assert!(variants >= 1, "no variants checked");
}

#[test]
fn an_edit_must_name_text_found_once() {
    let edits = serde_json::json!([["kfree(a[3])", "kfree(a[1])"]]);
    assert_eq!(
        apply_variant("x\nkfree(a[3]) on cpu0\n", &edits).as_deref(),
        Ok("x\nkfree(a[1]) on cpu0\n")
    );
    assert!(apply_variant("kfree(a[3])\nkfree(a[3])\n", &edits).is_err());
    assert!(apply_variant("kfree(a[2])\n", &edits).is_err());
    assert!(apply_variant("x", &serde_json::json!([["", "y"]])).is_err());
}
