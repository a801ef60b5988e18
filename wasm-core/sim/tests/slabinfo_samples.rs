//! Real `/proc/slabinfo` files (tests/data, copied from the project's shared data with their
//! provenance headers) against the v6.6 order rules: for every line of every SLUB sample,
//! objsize -> (objperslab, pagesperslab), with the CPU count the file's header states or infers;
//! and the kmalloc caches of a real boot against the ones the simulator's boot creates.

use slabscope_sim::boot::BootOptions;
use slabscope_sim::geometry::order::{calculate_order, order_objects};
use slabscope_sim::geometry::platform::{PageGeometry, SlubParams};
use slabscope_sim::machine::{Machine, MachineConfig};
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::slub::create_kmalloc_caches;
use slabscope_sim::trace::Recorder;
use std::collections::{BTreeMap, BTreeSet};

struct Line {
    name: String,
    objsize: u32,
    objperslab: u64,
    pagesperslab: u32,
}

struct Sample {
    file: &'static str,
    header: Vec<String>,
    lines: Vec<Line>,
}

fn load(file: &'static str) -> Sample {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut header = Vec::new();
    let mut lines = Vec::new();
    for raw in text.lines() {
        if raw.starts_with("# name") || raw.starts_with("slabinfo - version") {
            continue;
        }
        if let Some(comment) = raw.strip_prefix('#') {
            header.push(comment.to_string());
            continue;
        }
        let f: Vec<&str> = raw.split_whitespace().collect();
        if f.len() < 6 {
            continue;
        }
        lines.push(Line {
            name: f[0].to_string(),
            objsize: f[3].parse().unwrap(),
            objperslab: f[4].parse().unwrap(),
            pagesperslab: f[5].parse().unwrap(),
        });
    }
    assert!(!lines.is_empty(), "{file} has no cache lines");
    Sample {
        file,
        header,
        lines,
    }
}

/// The CPU count the provenance header gives: the first number of its `CPUS:` line, else the
/// `N CPU cores` of its board line.
fn header_cpus(sample: &Sample) -> u32 {
    let first_number = |s: &str| -> Option<u32> {
        let digits: String = s
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit())
            .collect();
        digits.parse().ok()
    };
    for line in &sample.header {
        if let Some(rest) = line.trim_start().strip_prefix("CPUS:") {
            return first_number(rest).expect("CPUS: line has a number");
        }
    }
    for line in &sample.header {
        if let Some(at) = line.find(" CPU cores") {
            let before = &line[..at];
            let start = before
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            return before[start..].parse().expect("N CPU cores");
        }
    }
    panic!("{}: header states no CPU count", sample.file)
}

/// Lines whose (objperslab, pagesperslab) the v6.6 rule does not reproduce with `cpus`.
fn mismatches(sample: &Sample, cpus: u32) -> Vec<String> {
    let page = PageGeometry::new(4096).unwrap();
    let params = SlubParams::new(&page, cpus, 0, None, 0).unwrap();
    sample
        .lines
        .iter()
        .filter_map(|line| {
            let order = calculate_order(&page, &params, line.objsize)?;
            let got = (order_objects(&page, order, line.objsize), 1u32 << order);
            (got != (line.objperslab, line.pagesperslab)).then(|| {
                format!(
                    "{} objsize {}: computed {:?}, file has ({}, {})",
                    line.name, line.objsize, got, line.objperslab, line.pagesperslab
                )
            })
        })
        .collect()
}

const SLUB_SAMPLES: [&str; 4] = [
    "slabinfo-sample-1.txt",
    "slabinfo-sample-2.txt",
    "slabinfo-sample-5.txt",
    "slabinfo-sample-6.txt",
];

#[test]
fn every_line_of_every_slub_sample_is_reproduced() {
    let mut checked = 0;
    for file in SLUB_SAMPLES {
        let sample = load(file);
        let cpus = header_cpus(&sample);
        let wrong = mismatches(&sample, cpus);
        assert!(
            wrong.is_empty(),
            "{file} with {cpus} CPUs:\n{}",
            wrong.join("\n")
        );
        checked += sample.lines.len();
    }
    // 142 + 67 + 170 + 6 lines (spec section 6).
    assert_eq!(checked, 385);
}

#[test]
fn header_cpu_counts_are_read_as_stated() {
    let counts: Vec<u32> = SLUB_SAMPLES.iter().map(|f| header_cpus(&load(f))).collect();
    assert_eq!(counts, [2, 2, 2, 4]);
}

#[test]
fn the_samples_pin_down_the_cpu_count_class() {
    // nr_cpus enters only through fls(), so each sample fits a power-of-two class of counts
    // (spec 5.5): this also shows the comparison above can fail.
    let fits = |file| -> BTreeSet<u32> {
        let sample = load(file);
        (1..=64)
            .filter(|&c| mismatches(&sample, c).is_empty())
            .collect()
    };
    assert_eq!(fits("slabinfo-sample-1.txt"), BTreeSet::from([2, 3]));
    assert_eq!(fits("slabinfo-sample-5.txt"), BTreeSet::from([2, 3]));
    assert_eq!(fits("slabinfo-sample-6.txt"), (4..=7).collect());
}

/// Every kmalloc cache of a sample (kmalloc-*, kmalloc-cg-*, kmalloc-rcl-*, dma-kmalloc-*) by
/// name, with (objsize, objperslab, pagesperslab).
fn kmalloc_lines(lines: &[Line]) -> BTreeMap<String, (u32, u64, u32)> {
    lines
        .iter()
        .filter(|l| l.name.starts_with("kmalloc-") || l.name.starts_with("dma-kmalloc-"))
        .map(|l| (l.name.clone(), (l.objsize, l.objperslab, l.pagesperslab)))
        .collect()
}

#[test]
fn a_real_boots_kmalloc_caches_are_the_simulators() {
    // Sample 5 is an x86_64 kernel of the 6.1 series with CONFIG_MEMCG_KMEM and
    // CONFIG_ZONE_DMA, as the profile assumes: 52 kmalloc caches of four types. (Its
    // slabinfo lists the cgroup caches before the reclaimable ones: 6.1 numbered
    // KMALLOC_CGROUP right after KMALLOC_NORMAL; 6.6 moved it last. The order is checked
    // against the 6.6 source in tests/kmalloc_types.rs.)
    let sample = load("slabinfo-sample-5.txt");
    let theirs = kmalloc_lines(&sample.lines);
    assert_eq!(theirs.len(), 52);
    let cpus = header_cpus(&sample);
    // A booted SLUB machine of that many CPUs, one node of 1 MiB, distro boot options.
    let machine = Machine::new(MachineConfig {
        cpus,
        nodes: 1,
        cpu_node: Vec::new(),
        page_size: 4096,
        pages_per_node: 256,
        pcp_batch: None,
        pcp_high: None,
    })
    .unwrap();
    let mut rec = Recorder::new(machine, false);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
    let text = slabinfo(rec.machine());
    let ours: Vec<Line> = text
        .lines()
        .skip(2)
        .map(|raw| {
            let f: Vec<&str> = raw.split_whitespace().collect();
            Line {
                name: f[0].to_string(),
                objsize: f[3].parse().unwrap(),
                objperslab: f[4].parse().unwrap(),
                pagesperslab: f[5].parse().unwrap(),
            }
        })
        .collect();
    assert_eq!(kmalloc_lines(&ours), theirs);
}
