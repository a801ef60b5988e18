//! Functions that mirror a kernel function carry its name, as the function's own name or as a
//! `#[doc(alias)]`, so that a search for the kernel's symbol (go-to-symbol, grep, rustdoc)
//! lands on the code that models it, and the trace's step names lead to it.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// Kernel functions (mm/slub.c, mm/slab.c, mm/slab_common.c, mm/page_alloc.c, v6.6) whose
/// model must be findable by the kernel's name.
const KERNEL_FUNCTIONS: &[&str] = &[
    "___slab_alloc",
    "__slab_free",
    "__unfreeze_partials",
    "__free_one_page",
    "__rmqueue_smallest",
    "__do_kmalloc_node",
    "get_partial_node",
    "get_any_partial",
    "allocate_slab",
    "put_cpu_partial",
    "deactivate_slab",
    "discard_slab",
    "flush_slab",
    "do_slab_free",
    "slab_free_freelist_hook",
    "build_detached_freelist",
    "kmem_cache_alloc_bulk",
    "kmem_cache_free_bulk",
    "__kmem_cache_shrink",
    "virt_to_slab",
    "get_freepointer",
    "set_freepointer",
    "rmqueue_pcplist",
    "free_pcppages_bulk",
    "____cache_alloc",
    "____cache_alloc_node",
    "__do_cache_alloc",
    "___cache_free",
    "cache_alloc_refill",
    "cache_flusharray",
    "free_block",
    "__drain_alien_cache",
    "kvfree_call_rcu",
    "kfree_rcu_monitor",
];

/// Every `fn` name and `#[doc(alias = "…")]` in the `.rs` files under `dir`.
fn names_in(dir: &Path, names: &mut BTreeSet<String>) {
    for entry in fs::read_dir(dir).expect("source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            names_in(&path, names);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).expect("source file");
            for line in text.lines().map(str::trim_start) {
                if let Some(rest) = line.strip_prefix("#[doc(alias = \"") {
                    names.insert(rest.split('"').next().unwrap_or("").to_string());
                }
                let after_fn = line.split_once("fn ").filter(|(before, _)| {
                    before.is_empty()
                        || before.ends_with("pub ")
                        || before.ends_with(") ")
                        || before.ends_with("async ")
                });
                if let Some((_, rest)) = after_fn {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    names.insert(name);
                }
            }
        }
    }
}

#[test]
fn kernel_functions_are_found_by_their_kernel_names() {
    let mut names = BTreeSet::new();
    names_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut names,
    );
    let missing: Vec<&str> = KERNEL_FUNCTIONS
        .iter()
        .copied()
        .filter(|k| !names.contains(*k))
        .collect();
    assert!(
        missing.is_empty(),
        "no function is named, or has the doc alias, {missing:?}"
    );
}
