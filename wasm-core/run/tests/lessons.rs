//! Every lesson's scenario runs, and every step a lesson names (a section's anchor, an
//! exercise's cursors) is a step of that run. The lesson texts themselves are checked by the
//! web tests (web/lessons/lessons.test.ts); here only the figures a lesson's tables state that
//! can be recomputed: a `slabscope geometry` row against `kmem_cache_geometry()`, a change in
//! percent against the two numbers it compares. Both languages must give the same rows.

mod common;

use slabscope_run::run_with_summary;
use slabscope_scenario::parse;
use slabscope_sim::geometry::{kmem_cache_geometry, CacheRequest, CacheSource, SlabFlags};
use std::collections::{BTreeMap, BTreeSet};

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
        // Each section's anchor and each exercise runs the lesson's scenario or its own file.
        let mut parts: Vec<(String, &serde_json::Value, String)> = Vec::new();
        for (i, s) in meta["sections"].as_array().unwrap().iter().enumerate() {
            let anchor = &s["anchor"];
            parts.push((
                format!("{id}.sections[{i}]"),
                s,
                common::part_scenario(&id, anchor, &text),
            ));
        }
        for (i, e) in meta["exercises"].as_array().unwrap().iter().enumerate() {
            parts.push((
                format!("{id}.exercises[{i}]"),
                e,
                common::part_scenario(&id, e, &text),
            ));
        }
        let mut steps_of: BTreeMap<String, u64> = BTreeMap::new();
        for (at, part, scenario_text) in parts {
            let steps = *steps_of.entry(scenario_text.clone()).or_insert_with(|| {
                let scenario = parse(&scenario_text).unwrap_or_else(|e| panic!("{at}: {e}"));
                let (rec, _) =
                    run_with_summary(&scenario, true).unwrap_or_else(|e| panic!("{at}: {e}"));
                rec.step_count() as u64
            });
            let mut named = Vec::new();
            cursors(part, &mut named, &at);
            for (at, cursor) in named {
                assert!(
                    cursor <= steps,
                    "{at} = {cursor}, but the run has {steps} steps"
                );
            }
        }
    }
}

/// The rows of every Markdown table of a lesson's text in one language, as trimmed cells.
fn table_rows(id: &str, lang: &str) -> Vec<Vec<String>> {
    let path = format!(
        "{}/../../lessons/{id}/{lang}.md",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(str::trim)
        .filter(|l| l.len() > 1 && l.starts_with('|') && l.ends_with('|'))
        .map(|l| {
            l[1..l.len() - 1]
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The `slabscope geometry` request a table cell quotes as its flags, e.g.
/// `` `--object-size 192 --cpus 16 --slub-max-order 0` `` (the CLI's defaults otherwise).
fn geometry_request(cell: &str) -> CacheRequest {
    let words: Vec<&str> = cell.trim_matches('`').split_whitespace().collect();
    let mut req = CacheRequest {
        source: CacheSource::Object { object_size: 0 },
        align: 0,
        flags: SlabFlags::default(),
        ctor: false,
        page_size: 4096,
        cpus: 1,
        slub_min_objects: 0,
        slub_max_order: None,
        slub_min_order: 0,
        freeptr_offset: None,
        sheaf_capacity: None,
    };
    for pair in words.chunks(2) {
        let [flag, value] = pair else {
            panic!("{cell}: {pair:?} is not a flag and its value")
        };
        let n: u32 = value
            .parse()
            .unwrap_or_else(|_| panic!("{cell}: {flag} {value}"));
        match *flag {
            "--object-size" => req.source = CacheSource::Object { object_size: n },
            "--kmalloc" => req.source = CacheSource::Kmalloc { request_size: n },
            "--align" => req.align = n,
            "--page-size" => req.page_size = n,
            "--cpus" => req.cpus = n,
            "--slub-min-objects" => req.slub_min_objects = n,
            "--slub-max-order" => req.slub_max_order = Some(n),
            "--slub-min-order" => req.slub_min_order = n,
            other => panic!("{cell}: this test does not know the flag {other}"),
        }
    }
    req
}

/// The rows of a lesson that quote `slabscope geometry`: flags, objperslab, pagesperslab.
fn geometry_rows(id: &str, lang: &str) -> Vec<Vec<String>> {
    table_rows(id, lang)
        .into_iter()
        .filter(|row| row[0].starts_with("`--"))
        .collect()
}

#[test]
fn the_slab_geometry_a_lesson_quotes_is_what_the_simulator_computes() {
    for (id, _, _) in common::lessons() {
        let rows = geometry_rows(&id, "en");
        assert_eq!(
            rows,
            geometry_rows(&id, "ko"),
            "{id}: en and ko quote different geometry"
        );
        for row in &rows {
            let g = kmem_cache_geometry(&geometry_request(&row[0]))
                .unwrap_or_else(|e| panic!("{id}: {}: {e:?}", row[0]));
            let quoted = row.get(1..3).map(<[String]>::to_vec);
            let computed = vec![g.objs_per_slab.to_string(), g.pages_per_slab.to_string()];
            assert_eq!(
                quoted,
                Some(computed),
                "{id}: {} (objperslab, pagesperslab)",
                row[0]
            );
        }
    }
}

#[test]
fn reading_slabinfo_shows_one_objsize_with_different_slabs() {
    // calculate_order() (mm/slub.c, v6.6) also reads the CPU count, PAGE_SIZE and the
    // slub_min_objects=/slub_max_order=/slub_min_order= parameters: lesson 13 must show one
    // object size giving two different slabs, so that it does not teach objsize as the whole
    // input.
    let mut slabs = BTreeMap::<String, BTreeSet<&[String]>>::new();
    let rows = geometry_rows("13-reading-slabinfo", "en");
    for row in &rows {
        let source = format!("{:?}", geometry_request(&row[0]).source);
        slabs.entry(source).or_default().insert(&row[1..]);
    }
    assert!(
        slabs.values().any(|seen| seen.len() >= 2),
        "lesson 13 quotes no object size with two different slabs: {rows:?}"
    );
}

/// `+29%`, `-5%`: a change in whole percent.
fn percent(cell: &str) -> Option<i64> {
    let digits = cell.strip_suffix('%')?;
    let sign = match digits.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    digits[1..].parse::<i64>().ok().map(|n| sign * n)
}

#[test]
fn every_change_a_lesson_table_states_is_computed_from_its_two_numbers() {
    for (id, _, _) in common::lessons() {
        let en = table_rows(&id, "en");
        for lang in ["en", "ko"] {
            for row in table_rows(&id, lang) {
                for (i, cell) in row.iter().enumerate() {
                    let Some(stated) = percent(cell) else {
                        continue;
                    };
                    let number = |j: usize| -> f64 {
                        row[j].parse().unwrap_or_else(|_| {
                            panic!("{id} {lang}: {row:?}: {cell} follows no pair of numbers")
                        })
                    };
                    assert!(
                        i >= 2,
                        "{id} {lang}: {row:?}: {cell} follows no pair of numbers"
                    );
                    let (before, after) = (number(i - 2), number(i - 1));
                    let computed = (100.0 * (after - before) / before).round() as i64;
                    assert_eq!(
                        stated, computed,
                        "{id} {lang}: {row:?}: {before} -> {after}"
                    );
                }
            }
        }
        let changes = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
            rows.into_iter()
                .filter(|row| row.iter().any(|c| percent(c).is_some()))
                .collect()
        };
        assert_eq!(
            changes(en),
            changes(table_rows(&id, "ko")),
            "{id}: en and ko tables differ"
        );
    }
}

#[test]
fn slab_refill_shows_the_whole_benchmark_table() {
    // The patch's description measured kmalloc sizes 32 to 4096, alloc and free, before and
    // after: every size must be in the table, each with both changes.
    let sizes: Vec<u32> = table_rows("10-slab-refill", "en")
        .into_iter()
        .filter(|row| row.iter().filter(|c| percent(c).is_some()).count() == 2)
        .map(|row| row[0].parse().expect("the first cell is the size"))
        .collect();
    let whole: Vec<u32> = (5..=12).map(|shift| 1 << shift).collect();
    assert_eq!(sizes, whole);
}
