//! The scenarios inside the web app's share-link fixtures (web/scenario/fixtures/links.json):
//! every one still parses and runs with the machine's invariants, whatever scenario format it
//! says on its first line, so a link made by any release opens to a run, not an error.

use slabscope_run::run;
use slabscope_scenario::{parse, VERSIONS};
use slabscope_sim::machine::check::check_machine;
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn every_link_fixture_opens_to_a_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/scenario/fixtures/links.json");
    let text = std::fs::read_to_string(&path).expect("links.json");
    let fixtures: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let mut versions = BTreeSet::new();
    for f in fixtures.as_array().expect("a list") {
        let text = f["text"].as_str().expect("a text");
        let scenario = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        versions.insert(scenario.version);
        let rec = run(&scenario, true).unwrap_or_else(|e| panic!("{text}: {e}"));
        for cursor in 0..=rec.cursor() {
            let bad = check_machine(&rec.snapshot_at(cursor).expect("recorded"));
            assert!(bad.is_empty(), "{text}: after step {cursor}: {bad:?}");
        }
    }
    assert_eq!(
        versions,
        VERSIONS.iter().copied().collect(),
        "a link fixture of each scenario format"
    );
}
