//! Run errors (a scenario that parses but cannot run) carry a key and arguments so the web
//! app words them in the reader's language. The cases below are kept, with the errors they
//! give, in web/scenario/fixtures/run-errors.json, which the web tests render in English (to
//! the same text as here) and in Korean. `UPDATE_FIXTURES=1 cargo test --test run_errors`
//! rewrites the file.

mod common;

use slabscope_run::run_with_summary;
use slabscope_scenario::parse;

const CASES: &[&str] = &[
    "slabscope-scenario 1\nmachine cpus=1\nflush_cpu_slab(kmalloc-100) on cpu0\n",
    "slabscope-scenario 1\nmachine cpus=1\ncache_reap() on cpu0\n",
    "slabscope-scenario 1\nallocator slab\nmachine cpus=1\nflush_cpu_slab(kmalloc-64) on cpu0\n",
    "slabscope-scenario 1\nmachine cpus=1\nrepeat 2 t[] = kmalloc(8) on cpu0\nkfree(t[5]) on cpu0\n",
    "slabscope-scenario 1\nmachine cpus=1 memory=64M\nrepeat 1000000 a[] = kmalloc(8) on cpu0\nkmalloc(8) on cpu0\n",
    // Each line doubles the list: the tenth copy passes MAX_LIST_ELEMENTS.
    "slabscope-scenario 2\nmachine cpus=1\nrepeat 1000 t[] = kmalloc(0) on cpu0\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\nt = [t, t]\n",
];

fn case(text: &str) -> serde_json::Value {
    let scenario = parse(text).unwrap_or_else(|e| panic!("{text}: does not parse: {e}"));
    let Err(e) = run_with_summary(&scenario, false) else {
        panic!("{text}: runs without error");
    };
    let (key, args) = e.key_args();
    serde_json::json!({
        "text": text,
        "error": { "line": e.line(), "key": key, "args": args, "message": e.to_string() },
    })
}

#[test]
fn run_errors_match_the_web_fixture() {
    let cases: Vec<_> = CASES.iter().map(|t| case(t)).collect();
    let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
    common::check_fixture("web/scenario/fixtures/run-errors.json", &text);
}
