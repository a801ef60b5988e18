//! Parse errors carry a stable key and named arguments, and the pair decides the wording: the
//! web app turns them into English or Korean (web/i18n, `scenarioError.*`) without reading the
//! English message. This test keeps three things in step:
//!
//! - `KEYS`, every key the parser can give, against the keys named in the crate's source;
//! - `CASES`, a small bad scenario for every key (and for most of the places that give one);
//! - web/scenario/fixtures/parse-errors.json, the cases with the errors they give, serialised
//!   as the simulator sends them to the web app. The web tests render each one in both
//!   languages. `UPDATE_FIXTURES=1 cargo test -p slabscope-scenario --test parse_errors`
//!   rewrites it.

use slabscope_scenario::{parse, ParseError, MAX_TEXT};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Compares `text` with the checked-in fixture at `path` (relative to the repository root),
/// first writing it there when `UPDATE_FIXTURES` is set.
fn check_fixture(path: &str, text: &str) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
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

/// The text of every Rust file under `dir`, depth first.
fn sources(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// Every key a parse error can have.
const KEYS: &[&str] = &[
    "scenario.align",
    "scenario.allocator",
    "scenario.allocator_removed",
    "scenario.bad_character",
    "scenario.bad_cpu",
    "scenario.bad_cpu_node",
    "scenario.bad_number",
    "scenario.bad_schedule",
    "scenario.bad_version",
    "scenario.block_needs_cpu",
    "scenario.block_nested",
    "scenario.block_not_closed",
    "scenario.cache_arg_version",
    "scenario.cache_flag",
    "scenario.count_too_big",
    "scenario.cpu",
    "scenario.cpu_not_wanted",
    "scenario.duplicate_cache",
    "scenario.duplicate_machine",
    "scenario.empty",
    "scenario.empty_block",
    "scenario.end_without_block",
    "scenario.expected_allocator",
    "scenario.expected_cache",
    "scenario.expected_cache_name",
    "scenario.expected_count",
    "scenario.expected_cpu",
    "scenario.expected_directive",
    "scenario.expected_gfp",
    "scenario.expected_in",
    "scenario.expected_index",
    "scenario.expected_list",
    "scenario.expected_list_name",
    "scenario.expected_loop_name",
    "scenario.expected_node",
    "scenario.expected_object",
    "scenario.expected_object_not_range",
    "scenario.expected_on_off",
    "scenario.expected_one_number",
    "scenario.expected_operation",
    "scenario.expected_order",
    "scenario.expected_print_file",
    "scenario.expected_profile",
    "scenario.expected_range_end",
    "scenario.expected_repeat_count",
    "scenario.expected_result_name",
    "scenario.expected_schedule_step",
    "scenario.expected_seed",
    "scenario.expected_setting",
    "scenario.expected_site",
    "scenario.expected_size",
    "scenario.expected_slub_debug",
    "scenario.expected_switch",
    "scenario.expected_symbol",
    "scenario.expected_task",
    "scenario.expected_teaching",
    "scenario.expected_value",
    "scenario.gfp_movable",
    "scenario.gfp_slab_bug_mask",
    "scenario.gfp_thisnode",
    "scenario.index_too_big",
    "scenario.list_prefix",
    "scenario.machine_cpu_node",
    "scenario.machine_cpu_node_length",
    "scenario.machine_cpus",
    "scenario.machine_node_without_cpu",
    "scenario.machine_nodes",
    "scenario.machine_page_size",
    "scenario.machine_pages",
    "scenario.memory",
    "scenario.memory_and_pages",
    "scenario.missing_cpus",
    "scenario.missing_machine",
    "scenario.missing_size",
    "scenario.needs_version",
    "scenario.no_cpu",
    "scenario.no_magic",
    "scenario.no_result",
    "scenario.node",
    "scenario.node_too_big",
    "scenario.not_in_block",
    "scenario.number_overflow",
    "scenario.number_too_large",
    "scenario.op_before_machine",
    "scenario.order_too_big",
    "scenario.pcp_before_machine",
    "scenario.print_prefix",
    "scenario.profile",
    "scenario.random_kmalloc_caches_slab",
    "scenario.range",
    "scenario.range_end_too_big",
    "scenario.repeat_count_too_big",
    "scenario.repeat_name",
    "scenario.repeat_zero",
    "scenario.schedule_outside",
    "scenario.schedule_too_long",
    "scenario.site_not_kmalloc",
    "scenario.size_too_big",
    "scenario.slub_debug",
    "scenario.task_number",
    "scenario.task_outside_block",
    "scenario.too_big",
    "scenario.too_large",
    "scenario.trailing",
    "scenario.unknown_boot_setting",
    "scenario.unknown_cache",
    "scenario.unknown_cache_did_you_mean",
    "scenario.unknown_cache_setting",
    "scenario.unknown_gfp",
    "scenario.unknown_gfp_did_you_mean",
    "scenario.unknown_list",
    "scenario.unknown_machine_setting",
    "scenario.unknown_machine_setting_did_you_mean",
    "scenario.unknown_name",
    "scenario.unknown_operation",
    "scenario.unknown_operation_did_you_mean",
    "scenario.unknown_pcp_setting",
    "scenario.unknown_print_file",
    "scenario.unknown_switch",
    "scenario.unknown_switch_did_you_mean",
    "scenario.unknown_teaching",
    "scenario.usercopy",
    "scenario.version",
];

/// The first line alone, and with a two-CPU, one-node machine.
const V1: &str = "slabscope-scenario 1\n";
const HEADER: &str = "slabscope-scenario 1\nmachine cpus=2 nodes=1 memory=64K\n";
/// A header with a cache `foo` and a list `t` of four objects.
const WITH_LIST: &str = "slabscope-scenario 1\nmachine cpus=2 nodes=1 memory=64K\ncache foo size=8\nrepeat 4 t[] = kmalloc(8) on cpu0\n";
/// The same three in format 2, for what format 1 refuses (gfp flags, `at SITE`, the RCU
/// operations, kmalloc types' switch and cache options).
const V2: &str = "slabscope-scenario 2\n";
const HEADER_V2: &str = "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=64K\n";
const WITH_LIST_V2: &str = "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=64K\ncache foo size=8\nrepeat 4 t[] = kmalloc(8) on cpu0\n";
/// The same in format 2, with an object `a` too.
/// Format 3, with a cache and an object to free.
const V3: &str = "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=64K\ncache foo size=8\na = kmalloc(8) on cpu0\n";

const V2_LIST: &str = "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=64K\ncache foo size=8\nrepeat 4 t[] = kmalloc(8) on cpu0\na = kmalloc(8) on cpu0\n";

/// (key the text must give, what follows the prefix).
const CASES: &[(&str, &str, &str)] = &[
    // Lines before the machine: the first line and what may come before `machine`.
    ("scenario.empty", "", ""),
    ("scenario.no_magic", "", "hello\n"),
    ("scenario.version", "", "slabscope-scenario 4\n"),
    ("scenario.bad_version", "", "slabscope-scenario one\n"),
    ("scenario.missing_machine", V1, ""),
    ("scenario.expected_directive", V1, "= kmalloc(8)\n"),
    ("scenario.bad_character", V1, "<script>\n"),
    ("scenario.expected_profile", V1, "profile\n"),
    ("scenario.profile", V1, "profile linux-5.10\n"),
    ("scenario.trailing", V1, "profile linux-6.6 lts\n"),
    ("scenario.expected_allocator", V1, "allocator\n"),
    ("scenario.allocator", V1, "allocator slob\n"),
    ("scenario.pcp_before_machine", V1, "pcp batch=3\n"),
    ("scenario.expected_switch", V1, "switch\n"),
    (
        "scenario.expected_on_off",
        V1,
        "switch freelist_random maybe\n",
    ),
    ("scenario.unknown_switch", V1, "switch turbo on\n"),
    (
        "scenario.unknown_switch_did_you_mean",
        V1,
        "switch freelist_randon on\n",
    ),
    ("scenario.expected_slub_debug", V1, "slub_debug\n"),
    ("scenario.slub_debug", V1, "slub_debug FZX\n"),
    (
        "scenario.unknown_boot_setting",
        V1,
        "boot slub_min_partial=5\n",
    ),
    ("scenario.too_big", V1, "boot slub_max_order=20\n"),
    ("scenario.expected_seed", V1, "seed forty\n"),
    ("scenario.number_too_large", V1, "seed 99999999999G\n"),
    (
        "scenario.number_overflow",
        V1,
        "seed 99999999999999999999\n",
    ),
    ("scenario.bad_number", V1, "seed 12x\n"),
    (
        "scenario.op_before_machine",
        V1,
        "a = kmalloc(64) on cpu0\n",
    ),
    // The machine line.
    ("scenario.expected_setting", V1, "machine cpus=2 4\n"),
    ("scenario.expected_value", V1, "machine cpus=\n"),
    ("scenario.too_big", V1, "machine cpus=99\n"),
    ("scenario.expected_one_number", V1, "machine cpus=two\n"),
    ("scenario.bad_cpu_node", V1, "machine cpus=2 cpu_node=0,7\n"),
    (
        "scenario.unknown_machine_setting",
        V1,
        "machine cpus=2 turbo=1\n",
    ),
    (
        "scenario.unknown_machine_setting_did_you_mean",
        V1,
        "machine cpus=2 node=1\n",
    ),
    ("scenario.missing_cpus", V1, "machine nodes=1\n"),
    (
        "scenario.memory_and_pages",
        V1,
        "machine cpus=1 memory=64K pages_per_node=16\n",
    ),
    ("scenario.memory", V1, "machine cpus=2 memory=5000\n"),
    ("scenario.machine_cpus", V1, "machine cpus=0\n"),
    ("scenario.machine_nodes", V1, "machine cpus=1 nodes=0\n"),
    (
        "scenario.machine_page_size",
        V1,
        "machine cpus=1 page_size=1000\n",
    ),
    (
        "scenario.machine_pages",
        V1,
        "machine cpus=1 pages_per_node=0\n",
    ),
    (
        "scenario.machine_cpu_node_length",
        V1,
        "machine cpus=2 cpu_node=0\n",
    ),
    (
        "scenario.machine_cpu_node",
        V1,
        "machine cpus=2 cpu_node=0,1\n",
    ),
    (
        "scenario.machine_node_without_cpu",
        V1,
        "machine cpus=1 nodes=2\n",
    ),
    ("scenario.duplicate_machine", HEADER, "machine cpus=1\n"),
    ("scenario.unknown_pcp_setting", HEADER, "pcp low=3\n"),
    ("scenario.expected_one_number", HEADER, "pcp batch=1,2\n"),
    // Caches.
    ("scenario.expected_cache_name", HEADER, "cache\n"),
    (
        "scenario.duplicate_cache",
        HEADER,
        "cache foo size=8\ncache foo size=16\n",
    ),
    (
        "scenario.duplicate_cache",
        HEADER,
        "cache kmalloc-64 size=64\n",
    ),
    (
        "scenario.cache_flag",
        HEADER,
        "cache foo size=8 flags=poison\n",
    ),
    (
        "scenario.unknown_cache_setting",
        HEADER,
        "cache foo size=8 colour=2\n",
    ),
    ("scenario.missing_size", HEADER, "cache foo align=8\n"),
    (
        "scenario.duplicate_cache",
        HEADER,
        "cache dma-kmalloc-64 size=64\n",
    ),
    (
        "scenario.usercopy",
        HEADER_V2,
        "cache foo size=8 usersize=16\n",
    ),
    (
        "scenario.usercopy",
        HEADER_V2,
        "cache foo size=64 useroffset=8\n",
    ),
    (
        "scenario.usercopy",
        HEADER_V2,
        "cache foo size=64 usersize=32 useroffset=40\n",
    ),
    (
        "scenario.cache_arg_version",
        V2,
        "machine cpus=1\ncache foo size=64 sheaf_capacity=32\n",
    ),
    (
        "scenario.allocator_removed",
        V2,
        "profile linux-6.12\nallocator slab\nmachine cpus=1\n",
    ),
    (
        "scenario.random_kmalloc_caches_slab",
        V2,
        "switch random_kmalloc_caches on\nallocator slab\nmachine cpus=1\n",
    ),
    ("scenario.align", HEADER, "cache foo size=8 align=12\n"),
    ("scenario.too_big", HEADER, "cache foo size=8M\n"),
    // Operations: repeat, for, the target, the call, the CPU.
    (
        "scenario.expected_repeat_count",
        HEADER,
        "repeat a[] = kmalloc(8) on cpu0\n",
    ),
    (
        "scenario.repeat_count_too_big",
        HEADER,
        "repeat 2000000 a[] = kmalloc(8) on cpu0\n",
    ),
    (
        "scenario.repeat_zero",
        HEADER,
        "repeat 0 a[] = kmalloc(8) on cpu0\n",
    ),
    (
        "scenario.repeat_name",
        HEADER,
        "repeat 3 a = kmalloc(8) on cpu0\n",
    ),
    (
        "scenario.expected_loop_name",
        WITH_LIST,
        "for 3 in t: kfree(x) on cpu0\n",
    ),
    (
        "scenario.expected_in",
        WITH_LIST,
        "for x of t: kfree(x) on cpu0\n",
    ),
    (
        "scenario.expected_in",
        WITH_LIST,
        "for x: kfree(x) on cpu0\n",
    ),
    (
        "scenario.expected_list_name",
        WITH_LIST,
        "for x in: kfree(x) on cpu0\n",
    ),
    (
        "scenario.unknown_list",
        WITH_LIST,
        "for x in u: kfree(x) on cpu0\n",
    ),
    (
        "scenario.expected_symbol",
        WITH_LIST,
        "for x in t kfree(x) on cpu0\n",
    ),
    (
        "scenario.expected_symbol",
        HEADER,
        "t[] kmalloc(8) on cpu0\n",
    ),
    ("scenario.expected_operation", HEADER, "a = 64\n"),
    (
        "scenario.unknown_operation",
        HEADER,
        "a = get_free_page(0) on cpu0\n",
    ),
    (
        "scenario.unknown_operation_did_you_mean",
        HEADER,
        "a = kmaloc(64) on cpu0\n",
    ),
    (
        "scenario.expected_symbol",
        HEADER,
        "a = kmalloc 64 on cpu0\n",
    ),
    (
        "scenario.expected_symbol",
        HEADER,
        "a = kmalloc(64 on cpu0\n",
    ),
    (
        "scenario.expected_symbol",
        HEADER,
        "a = kmalloc_node(64 1) on cpu0\n",
    ),
    ("scenario.expected_cpu", HEADER, "a = kmalloc(64) on\n"),
    // gfp flags and call sites.
    (
        "scenario.expected_gfp",
        HEADER_V2,
        "a = kmalloc(64, 1) on cpu0\n",
    ),
    (
        "scenario.expected_gfp",
        HEADER_V2,
        "a = kmalloc(64, GFP_KERNEL |) on cpu0\n",
    ),
    (
        "scenario.unknown_gfp",
        HEADER_V2,
        "a = kmalloc(64, GFP_PLEASE) on cpu0\n",
    ),
    (
        "scenario.unknown_gfp_did_you_mean",
        HEADER_V2,
        "a = kmalloc(64, GFP_KERNL) on cpu0\n",
    ),
    (
        "scenario.unknown_gfp_did_you_mean",
        HEADER_V2,
        "a = kmalloc_node(64, GFP_ATOMC, 0) on cpu0\n",
    ),
    (
        "scenario.gfp_slab_bug_mask",
        HEADER_V2,
        "a = kmalloc(64, GFP_KERNEL | __GFP_DMA32) on cpu0\n",
    ),
    (
        "scenario.gfp_movable",
        HEADER_V2,
        "a = kmalloc(64, __GFP_MOVABLE) on cpu0\n",
    ),
    (
        "scenario.gfp_thisnode",
        HEADER_V2,
        "a = kmalloc_node(64, GFP_KERNEL | __GFP_THISNODE, 0) on cpu0\n",
    ),
    ("scenario.expected_site", HEADER_V2, "a = kmalloc(64) at\n"),
    (
        "scenario.expected_site",
        HEADER_V2,
        "a = kmalloc(64) on cpu0 at 7\n",
    ),
    (
        "scenario.site_not_kmalloc",
        WITH_LIST_V2,
        "kfree(t[0]) at site_a on cpu0\n",
    ),
    (
        "scenario.trailing",
        HEADER_V2,
        "a = kmalloc(64) at x on cpu0 at y\n",
    ),
    ("scenario.bad_cpu", HEADER, "a = kmalloc(64) on core0\n"),
    ("scenario.cpu", HEADER, "a = kmalloc(64) on cpu7\n"),
    (
        "scenario.trailing",
        HEADER,
        "a = kmalloc(8) on cpu0 extra\n",
    ),
    ("scenario.no_cpu", HEADER, "a = kmalloc(64)\n"),
    ("scenario.no_cpu", WITH_LIST_V2, "kfree_rcu(t[0])\n"),
    (
        "scenario.cpu_not_wanted",
        HEADER_V2,
        "rcu_barrier() on cpu0\n",
    ),
    (
        "scenario.cpu_not_wanted",
        HEADER_V2,
        "synchronize_rcu() on cpu1\n",
    ),
    (
        "scenario.no_result",
        HEADER_V2,
        "a = kfree_rcu_monitor() on cpu0\n",
    ),
    (
        "scenario.unknown_operation_did_you_mean",
        HEADER,
        "rcu_barier()\n",
    ),
    (
        "scenario.expected_object",
        WITH_LIST_V2,
        "kfree_rcu(t) on cpu0\n",
    ),
    ("scenario.no_result", HEADER, "a = drain_pages() on cpu0\n"),
    // Arguments of the calls.
    ("scenario.expected_size", HEADER, "a = kmalloc(x) on cpu0\n"),
    (
        "scenario.size_too_big",
        HEADER,
        "a = kmalloc(2000000000000) on cpu0\n",
    ),
    (
        "scenario.expected_node",
        HEADER,
        "a = kmalloc_node(64, x) on cpu0\n",
    ),
    (
        "scenario.node_too_big",
        HEADER,
        "a = kmalloc_node(64, 100) on cpu0\n",
    ),
    ("scenario.node", HEADER, "a = kmalloc_node(64, 1) on cpu0\n"),
    (
        "scenario.node",
        HEADER,
        "p = alloc_pages_node(2, 0) on cpu0\n",
    ),
    (
        "scenario.expected_order",
        HEADER,
        "p = alloc_pages(x) on cpu0\n",
    ),
    (
        "scenario.order_too_big",
        HEADER,
        "p = alloc_pages(14) on cpu0\n",
    ),
    (
        "scenario.order_too_big",
        HEADER,
        "p = alloc_pages_node(0, 20) on cpu0\n",
    ),
    (
        "scenario.expected_cache",
        HEADER,
        "kmem_cache_alloc(64) on cpu0\n",
    ),
    (
        "scenario.unknown_cache",
        HEADER,
        "kmem_cache_alloc(dentry) on cpu0\n",
    ),
    (
        "scenario.unknown_cache_did_you_mean",
        WITH_LIST,
        "a = kmem_cache_alloc(fo) on cpu0\n",
    ),
    (
        "scenario.expected_count",
        WITH_LIST,
        "u = kmem_cache_alloc_bulk(foo, n) on cpu0\n",
    ),
    (
        "scenario.count_too_big",
        WITH_LIST,
        "u = kmem_cache_alloc_bulk(foo, 100000) on cpu0\n",
    ),
    (
        "scenario.expected_result_name",
        HEADER,
        "kfree(3) on cpu0\n",
    ),
    ("scenario.unknown_name", HEADER, "kfree(b) on cpu0\n"),
    (
        "scenario.expected_index",
        WITH_LIST,
        "kfree(t[x]) on cpu0\n",
    ),
    (
        "scenario.index_too_big",
        WITH_LIST,
        "kfree(t[5000000000]) on cpu0\n",
    ),
    (
        "scenario.expected_range_end",
        WITH_LIST,
        "kfree_bulk(t[1..]) on cpu0\n",
    ),
    (
        "scenario.range_end_too_big",
        WITH_LIST,
        "kfree_bulk(t[1..5000000000]) on cpu0\n",
    ),
    ("scenario.range", WITH_LIST, "kfree_bulk(t[3..1]) on cpu0\n"),
    (
        "scenario.expected_symbol",
        WITH_LIST,
        "kfree(t[1) on cpu0\n",
    ),
    (
        "scenario.expected_object_not_range",
        WITH_LIST,
        "kfree(t[1..3]) on cpu0\n",
    ),
    (
        "scenario.expected_list",
        HEADER,
        "a = kmalloc(8) on cpu0\nkfree_bulk(a) on cpu0\n",
    ),
    ("scenario.expected_object", WITH_LIST, "kfree(t) on cpu0\n"),
    // Format 2: list lines, list forms in loops, print, and what kmalloc types and RCU added.
    ("scenario.needs_version", WITH_LIST, "print slabinfo\n"),
    (
        "scenario.needs_version",
        HEADER,
        "a = kmalloc(64, GFP_KERNEL_ACCOUNT) on cpu0\n",
    ),
    (
        "scenario.needs_version",
        HEADER,
        "a = kmalloc(64) at site_a on cpu0\n",
    ),
    (
        "scenario.needs_version",
        V1,
        "switch random_kmalloc_caches\n",
    ),
    (
        "scenario.needs_version",
        HEADER,
        "cache foo size=64 usersize=32\n",
    ),
    (
        "scenario.needs_version",
        HEADER,
        "cache foo size=64 flags=hwcache_align,account\n",
    ),
    (
        "scenario.needs_version",
        WITH_LIST,
        "kfree_rcu(t[0]) on cpu0\n",
    ),
    ("scenario.needs_version", HEADER, "rcu_barrier()\n"),
    ("scenario.needs_version", WITH_LIST, "u = reverse(t)\n"),
    (
        "scenario.needs_version",
        WITH_LIST,
        "for x in reverse(t): kfree(x) on cpu0\n",
    ),
    ("scenario.expected_print_file", V2_LIST, "print\n"),
    ("scenario.unknown_print_file", V2_LIST, "print meminfo\n"),
    ("scenario.unknown_cache", V2_LIST, "print sysfs dentry\n"),
    (
        "scenario.print_prefix",
        V2_LIST,
        "repeat 2 print slabinfo\n",
    ),
    ("scenario.list_prefix", V2_LIST, "for x in t: u[] = x\n"),
    ("scenario.list_prefix", V2_LIST, "repeat 2 u = reverse(t)\n"),
    ("scenario.expected_list", V2_LIST, "u = interleave(t, a)\n"),
    (
        "scenario.expected_object",
        V2_LIST,
        "u = [t[0], t[1]]\nkfree(u) on cpu0\n",
    ),
    ("scenario.expected_symbol", V2_LIST, "u = [t[0] t[1]]\n"),
    ("scenario.expected_symbol", V2_LIST, "u = reverse(t\n"),
    ("scenario.unknown_name", V2_LIST, "u = [t[0], b]\n"),
    (
        "scenario.range",
        V2_LIST,
        "for x in t[3..1]: kfree(x) on cpu0\n",
    ),
    // Format 3: concurrent blocks and the teaching switch.
    ("scenario.needs_version", V2_LIST, "concurrent\n"),
    ("scenario.needs_version", V2_LIST, "teaching no_tid\n"),
    ("scenario.bad_schedule", V3, "concurrent sometimes\nend\n"),
    ("scenario.block_nested", V3, "concurrent\nconcurrent\nend\n"),
    (
        "scenario.block_not_closed",
        V3,
        "concurrent\nkfree(a) on cpu1\n",
    ),
    ("scenario.empty_block", V3, "concurrent\nend\n"),
    ("scenario.end_without_block", V3, "end\n"),
    (
        "scenario.schedule_outside",
        V3,
        "concurrent\nschedule cpu0\nkfree(a) on cpu1\nend\n",
    ),
    (
        "scenario.expected_schedule_step",
        V3,
        "concurrent explicit\nschedule 3\nend\n",
    ),
    (
        "scenario.schedule_too_long",
        V3,
        "concurrent explicit\nschedule cpu0:100001\nend\n",
    ),
    (
        "scenario.bad_cpu",
        V3,
        "concurrent explicit\nschedule preempt(cpu0, gpu1)\nend\n",
    ),
    (
        "scenario.cpu",
        V3,
        "concurrent explicit\nschedule irq(cpu7)\nend\n",
    ),
    ("scenario.expected_teaching", V3, "teaching\n"),
    ("scenario.unknown_teaching", V3, "teaching no_locks\n"),
    (
        "scenario.expected_task",
        V3,
        "concurrent\nkfree(a) on cpu1 task\nend\n",
    ),
    (
        "scenario.task_number",
        V3,
        "concurrent\nkfree(a) on cpu1 task 17\nend\n",
    ),
    ("scenario.task_outside_block", V3, "kfree(a) on cpu1 irq\n"),
    (
        "scenario.not_in_block",
        V3,
        "concurrent\ncache bar size=16\nend\n",
    ),
    (
        "scenario.not_in_block",
        V3,
        "concurrent\nprint slabinfo\nend\n",
    ),
    (
        "scenario.block_needs_cpu",
        V3,
        "concurrent\nflush_all(foo)\nend\n",
    ),
];

/// The one case too big to keep as text: `MAX_TEXT + 1` bytes of `x`.
fn too_large() -> (String, ParseError) {
    let text = "x".repeat(MAX_TEXT + 1);
    let e = parse(&text).expect_err("too large");
    (text, e)
}

fn error_of(key: &str, text: &str) -> ParseError {
    match parse(text) {
        Ok(_) => panic!("{key}: {text:?} parses"),
        Err(e) => {
            assert_eq!(e.key, key, "{text:?} gives {e}");
            e
        }
    }
}

/// The `"scenario.…"` string literals of a Rust source text.
fn keys_in(source: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find("\"scenario.") {
        let tail = &rest[at + 1..];
        let end = tail
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.'))
            .unwrap_or(tail.len());
        if tail[end..].starts_with('"') {
            keys.insert(tail[..end].to_string());
        }
        rest = &tail[end..];
    }
    keys
}

#[test]
fn every_parse_error_key_is_listed() {
    let mut texts = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut texts,
    );
    let mut in_source = BTreeSet::new();
    for text in &texts {
        in_source.extend(keys_in(text));
    }
    let listed: BTreeSet<String> = KEYS.iter().map(|k| k.to_string()).collect();
    assert_eq!(listed.len(), KEYS.len(), "a key is listed twice");
    let unlisted: Vec<_> = in_source.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&in_source).collect();
    assert!(
        unlisted.is_empty(),
        "keys in the parser but not in KEYS: {unlisted:?}"
    );
    assert!(
        stale.is_empty(),
        "keys in KEYS the parser no longer gives: {stale:?}"
    );
}

#[test]
fn every_key_has_a_case_and_one_wording() {
    let mut seen: BTreeMap<&str, (Vec<&str>, bool)> = BTreeMap::new();
    let (_, big) = too_large();
    let errors: Vec<ParseError> = CASES
        .iter()
        .map(|(key, head, tail)| error_of(key, &format!("{head}{tail}")))
        .chain([big])
        .collect();
    for e in &errors {
        assert!(KEYS.contains(&e.key), "unlisted key {}", e.key);
        let names: Vec<&str> = e.args.iter().map(|(n, _)| *n).collect();
        let shape = (names, e.hint.is_some());
        // The same key always has the same arguments and either always or never a hint: the
        // web app words the message and hint from the key and the arguments alone.
        let first = seen.entry(e.key).or_insert_with(|| shape.clone());
        assert_eq!(*first, shape, "{} has two shapes ({e})", e.key);
    }
    let missing: Vec<_> = KEYS.iter().filter(|k| !seen.contains_key(**k)).collect();
    assert!(missing.is_empty(), "keys with no case: {missing:?}");
}

#[test]
fn parse_errors_match_the_web_fixture() {
    let mut cases: Vec<serde_json::Value> = CASES
        .iter()
        .map(|(key, head, tail)| {
            let text = format!("{head}{tail}");
            let error = error_of(key, &text);
            serde_json::json!({ "text": text, "error": error })
        })
        .collect();
    let (text, error) = too_large();
    assert_eq!(text.len(), MAX_TEXT + 1);
    // Kept short: the text is `text` repeated `repeat` times.
    cases.push(serde_json::json!({ "text": "x", "repeat": MAX_TEXT + 1, "error": error }));
    let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
    check_fixture("web/scenario/fixtures/parse-errors.json", &text);
}
