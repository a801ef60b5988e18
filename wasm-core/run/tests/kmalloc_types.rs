//! The kmalloc cache types of v6.6 (`create_kmalloc_caches()`, `kmalloc_type()` and
//! `new_kmalloc_cache()` in mm/slab_common.c and include/linux/slab.h): which caches boot
//! creates and in what order, which cache a gfp mask and a call site pick, and how the cache
//! flags and a usercopy region decide merging (`slab_unmergeable()`, `find_mergeable()`).

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use slabscope_run::run;
use slabscope_scenario::parse;
use slabscope_sim::machine::check::check_machine;
use slabscope_sim::machine::Machine;
use slabscope_sim::slabinfo::slabinfo;

fn machine(text: &str) -> Machine {
    let s = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let rec = run(&s, true).unwrap_or_else(|e| panic!("{e}"));
    for cursor in 0..=rec.cursor() {
        let m = rec.snapshot_at(cursor).unwrap();
        let bad = check_machine(&m);
        assert!(bad.is_empty(), "after step {cursor}: {bad:?}");
    }
    rec.machine().clone()
}

/// `/proc/slabinfo`'s cache names, top to bottom.
fn names(m: &Machine) -> Vec<String> {
    slabinfo(m)
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// `num_slabs` of one cache in `/proc/slabinfo`.
fn num_slabs(m: &Machine, cache: &str) -> u64 {
    let text = slabinfo(m);
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(cache))
        .unwrap_or_else(|| panic!("no {cache} in\n{text}"));
    line.split_whitespace().nth(14).unwrap().parse().unwrap()
}

/// The cache an object lives in (SLUB).
fn cache_of(m: &Machine, addr: u64) -> String {
    let head = m.slub().slabs.head_of(m.addr_pfn(addr).unwrap()).unwrap();
    m.slub().caches[m.slub().slabs.get(&head).unwrap().cache]
        .name
        .clone()
}

/// One type's caches newest first: created from kmalloc-8 up, 96 right after 64 and 192
/// right after 128, so listed from the largest down.
const SIZES: [&str; 13] = [
    "8k", "4k", "2k", "1k", "512", "256", "192", "128", "96", "64", "32", "16", "8",
];

fn listed(prefixes: &[&str], sizes: &[&str]) -> Vec<String> {
    prefixes
        .iter()
        .flat_map(|p| sizes.iter().map(move |s| format!("{p}{s}")))
        .collect()
}

#[test]
fn slub_boot_creates_every_type_in_the_kernels_order() {
    let m = machine("slabscope-scenario 1\nmachine cpus=2 nodes=1 memory=1M\n");
    // create_kmalloc_caches() walks the types in enum order (v6.6: NORMAL, RECLAIM, DMA,
    // CGROUP), so the cgroup caches are the newest.
    let want = listed(
        &["kmalloc-cg-", "dma-kmalloc-", "kmalloc-rcl-", "kmalloc-"],
        &SIZES,
    );
    assert_eq!(names(&m), want);
    assert_eq!(m.random_kmalloc_seed, None);
}

#[test]
fn slab_boot_starts_at_kmalloc_32_after_kmalloc_128() {
    let m = machine("slabscope-scenario 1\nallocator slab\nmachine cpus=2 nodes=1 memory=1M\n");
    // kmem_cache_init() makes kmalloc-128 (struct kmem_cache_node) before
    // create_kmalloc_caches(), which skips it; KMALLOC_SHIFT_LOW is 5 under SLAB.
    let sizes = &SIZES[..11];
    let mut want = listed(&["kmalloc-cg-", "dma-kmalloc-", "kmalloc-rcl-"], sizes);
    want.extend(
        sizes
            .iter()
            .filter(|s| **s != "128")
            .map(|s| format!("kmalloc-{s}")),
    );
    want.push("kmalloc-128".into());
    assert_eq!(names(&m), want);
    // SLAB_RECLAIM_ACCOUNT stops calculate_slab_order() at the first acceptable order:
    // kmalloc-rcl-8k keeps order 1 like kmalloc-8k (one object is the fewest), and the
    // reclaimable kmalloc-96 has the 128-byte slots and 32 objects of sample 7's
    // kmalloc-reclaimable-96 (`17 64 128 32 1`).
    let text = slabinfo(&m);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap()
            .split_whitespace()
            .skip(3)
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(line("kmalloc-rcl-96"), "128 32 1");
    assert_eq!(line("kmalloc-cg-96"), line("kmalloc-96"));
}

#[test]
fn gfp_flags_pick_the_cache_type() {
    for allocator in ["slub", "slab"] {
        let m = machine(&format!(
            "slabscope-scenario 2
allocator {allocator}
machine cpus=2 nodes=2 memory=1M
a = kmalloc(64, GFP_KERNEL_ACCOUNT) on cpu0
b = kmalloc(100, GFP_KERNEL | __GFP_RECLAIMABLE) on cpu0
c = kmalloc_node(200, GFP_DMA, 1) on cpu0
d = kmalloc(512, GFP_DMA | __GFP_RECLAIMABLE | __GFP_ACCOUNT) on cpu0
e = kmalloc(1000, __GFP_ACCOUNT | __GFP_RECLAIMABLE) on cpu0
f = kmalloc(2000, GFP_ATOMIC) on cpu0
g = kmalloc_node(40, 1) on cpu0
"
        ));
        let slabs = |c: &str| num_slabs(&m, c);
        // __GFP_ACCOUNT alone: the cgroup type.
        assert_eq!(slabs("kmalloc-cg-64"), 1, "{allocator}");
        assert_eq!(slabs("kmalloc-64"), 1, "{allocator}: only g");
        // __GFP_RECLAIMABLE: kmalloc-rcl-128 (100 bytes).
        assert_eq!(slabs("kmalloc-rcl-128"), 1, "{allocator}");
        assert_eq!(slabs("kmalloc-128"), 0, "{allocator}");
        // GFP_DMA, through kmalloc_node(size, flags, node).
        assert_eq!(slabs("dma-kmalloc-256"), 1, "{allocator}");
        // DMA wins over reclaimable and accounted, reclaimable over accounted.
        assert_eq!(slabs("dma-kmalloc-512"), 1, "{allocator}");
        assert_eq!(slabs("kmalloc-rcl-1k"), 1, "{allocator}");
        assert_eq!(slabs("kmalloc-cg-1k"), 0, "{allocator}");
        // GFP_ATOMIC has none of the three bits: the normal cache.
        assert_eq!(slabs("kmalloc-2k"), 1, "{allocator}");
    }
}

/// FNV-1a of a site name placed in the kernel's text, as docs/scenario-format.md describes the
/// caller address of `at SITE`, written out again here.
fn site_address(name: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    0xffffffff81000000 + h % (16 << 20)
}

/// `kmalloc_type()` with random caches, by hand: the top 4 bits of
/// `(caller ^ seed) * GOLDEN_RATIO_64` (include/linux/hash.h), 0 being the normal cache.
fn random_cache(caller: u64, seed: u64, size: &str) -> String {
    let copy = (caller ^ seed).wrapping_mul(0x61C8864680B583EB) >> 60;
    if copy == 0 {
        format!("kmalloc-{size}")
    } else {
        format!("kmalloc-rnd-{copy:02}-{size}")
    }
}

#[test]
fn random_kmalloc_caches_spread_call_sites_by_hash_64() {
    let m = machine(
        "slabscope-scenario 2
machine cpus=1 nodes=1 memory=1M
seed 7
switch random_kmalloc_caches on
a = kmalloc(64) at site_a on cpu0
b = kmalloc(64) on cpu0 at site_b
c = kmalloc(64) on cpu0
d = kmalloc(64) at line7 on cpu0
e = kmalloc(64, GFP_KERNEL_ACCOUNT) at site_a on cpu0
",
    );
    // The seed is the first draw of the scenario's generator (no other switch draws at
    // boot): get_random_u64() at the end of create_kmalloc_caches().
    let mut rng = Pcg32::seed_from_u64(7);
    let seed = u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32());
    assert_eq!(m.random_kmalloc_seed, Some(seed));
    let objects: Vec<u64> = m.live().map(|(addr, _)| addr).collect();
    assert_eq!(objects.len(), 5);
    let site_a = random_cache(site_address("site_a"), seed, "64");
    let site_b = random_cache(site_address("site_b"), seed, "64");
    // With seed 7 the two sites land in different caches (a teacher's demonstration).
    assert_ne!(site_a, site_b);
    let mut landed: Vec<String> = objects.iter().map(|&o| cache_of(&m, o)).collect();
    landed.sort();
    let mut want = vec![
        site_a,
        site_b,
        // A line without `at` is the site `line<N>`: lines 7 and 8 share one.
        random_cache(site_address("line7"), seed, "64"),
        random_cache(site_address("line7"), seed, "64"),
        // An accounted request is never spread.
        "kmalloc-cg-64".to_string(),
    ];
    want.sort();
    assert_eq!(landed, want);
    // 15 copies of every normal cache, created after the normal ones and before the
    // reclaimable ones (KMALLOC_RANDOM_START + 1 .. KMALLOC_RANDOM_END).
    let all = names(&m);
    assert_eq!(all.len(), 13 * 19);
    let rnd: Vec<&String> = all
        .iter()
        .filter(|n| n.starts_with("kmalloc-rnd-"))
        .collect();
    assert_eq!(rnd.len(), 15 * 13);
    assert_eq!(rnd[0], "kmalloc-rnd-15-8k");
    assert_eq!(rnd[rnd.len() - 1], "kmalloc-rnd-01-8");
    let pos = |n: &str| all.iter().position(|x| x == n).unwrap();
    assert!(pos("kmalloc-rcl-8") < pos("kmalloc-rnd-15-8k"));
    assert!(pos("kmalloc-rnd-01-8") < pos("kmalloc-8k"));
}

#[test]
fn without_the_switch_sites_do_not_matter_and_nothing_is_drawn() {
    let m = machine(
        "slabscope-scenario 2
machine cpus=1 nodes=1 memory=1M
seed 7
a = kmalloc(64) at site_a on cpu0
b = kmalloc(64) at site_b on cpu0
",
    );
    assert_eq!(m.random_kmalloc_seed, None);
    assert_eq!(num_slabs(&m, "kmalloc-64"), 1);
    // No draw at boot: the generator is where a fresh one starts.
    assert_eq!(m.rng, Pcg32::seed_from_u64(7));
}

#[test]
fn merging_needs_the_same_account_flags_and_no_usercopy_region() {
    for allocator in ["slub", "slab"] {
        let m = machine(&format!(
            "slabscope-scenario 2
allocator {allocator}
machine cpus=1 nodes=1 memory=1M
cache plain size=64
cache acct size=64 flags=account
cache acct2 size=60 flags=account
cache plain2 size=64
cache rcl size=64 flags=reclaim_account
cache dma size=64 flags=cache_dma
cache copy size=64 usersize=32 useroffset=8
cache plain3 size=64
cache nomerge size=64 flags=no_merge
cache plain4 size=64
"
        ));
        let caches: Vec<(String, Vec<String>)> = match allocator {
            "slub" => m
                .slub()
                .caches
                .iter()
                .filter(|c| c.kmalloc.is_none())
                .map(|c| (c.name.clone(), c.aliases.clone()))
                .collect(),
            _ => m
                .slab()
                .caches
                .iter()
                .filter(|c| c.kmalloc.is_none())
                .map(|c| (c.name.clone(), c.aliases.clone()))
                .collect(),
        };
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // SLAB_ACCOUNT is in SLAB_MERGE_SAME: `acct` gets a cache of its own (not
        // kmalloc-cg-64 either: a kmalloc cache has a usercopy region), and `acct2` joins it.
        // A cache with a usercopy region is never merged, in either direction.
        // SLAB_NO_MERGE likewise.
        assert_eq!(
            caches,
            vec![
                ("plain".to_string(), s(&["plain2", "plain3", "plain4"])),
                ("acct".to_string(), s(&["acct2"])),
                ("rcl".to_string(), s(&[])),
                ("dma".to_string(), s(&[])),
                ("copy".to_string(), s(&[])),
                ("nomerge".to_string(), s(&[])),
            ],
            "{allocator}"
        );
    }
}
