//! A scenario cannot keep the simulator busy without end: the run stops with an error naming
//! the line once it passes the operation limit, however the operations were multiplied.

use slabscope_run::{run_with_summary, RunError, MAX_RUN_OPS};
use slabscope_scenario::parse;

#[test]
fn a_loop_over_a_long_list_stops_at_the_operation_limit() {
    let text = format!(
        "slabscope-scenario 1\nmachine cpus=1 nodes=1 memory=64M\nrepeat {MAX_RUN_OPS} a[] = kmalloc(8) on cpu0\nfor x in a: kfree(x) on cpu0\n"
    );
    let scenario = parse(&text).expect("the scenario parses");
    match run_with_summary(&scenario, false) {
        Err(
            e @ RunError::TooLong {
                line: 4,
                what: "operations",
                max,
            },
        ) => {
            assert_eq!(max, MAX_RUN_OPS);
            assert!(e
                .to_string()
                .starts_with("line 4: the run goes past 1000000 operations"));
        }
        Err(other) => panic!("stopped for another reason: {other}"),
        Ok(_) => panic!("ran {} operations", 2 * MAX_RUN_OPS),
    }
}

#[test]
fn a_run_at_the_limit_is_allowed() {
    let text = format!(
        "slabscope-scenario 1\nmachine cpus=1 nodes=1 memory=64M\nrepeat {} a[] = kmalloc(8) on cpu0\nfor x in a: kfree(x) on cpu0\n",
        MAX_RUN_OPS / 2
    );
    let scenario = parse(&text).expect("the scenario parses");
    let (_, summary) = run_with_summary(&scenario, false).expect("the run is within the limit");
    assert_eq!(summary.op_ends.len(), MAX_RUN_OPS);
}
