//! `/proc/slabinfo` for SLUB (`slab_show()`/`cache_show()` in mm/slab_common.c and
//! `get_slabinfo()` in mm/slub.c, v6.6; spec 1.6, 2.11).

use crate::machine::Machine;
use std::fmt::Write;

/// The header `print_slabinfo_header()` prints for SLUB (no statistics columns).
pub const HEADER: &str = "slabinfo - version: 2.1\n# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n";

/// The whole file: live caches, newest first, aliases not listed under their own names.
pub fn slabinfo(m: &Machine) -> String {
    let mut out = String::from(HEADER);
    for s in m.caches.iter().rev().filter(|s| !s.destroyed) {
        let (mut nr_slabs, mut nr_objs, mut nr_free) = (0u64, 0u64, 0u64);
        for n in &s.node {
            nr_slabs += n.nr_slabs;
            nr_objs += n.total_objects;
            // count_partial(): only node-partial slabs are scanned for free objects.
            nr_free += n
                .partial
                .iter()
                .map(|p| u64::from(m.slabs[p].objects - m.slabs[p].inuse))
                .sum::<u64>();
        }
        let _ = writeln!(
            out,
            "{:<17} {:>6} {:>6} {:>6} {:>4} {:>4} : tunables {:>4} {:>4} {:>4} : slabdata {:>6} {:>6} {:>6}",
            s.name,
            nr_objs - nr_free,
            nr_objs,
            s.geometry.size,
            s.geometry.objs_per_slab,
            1u32 << s.geometry.order,
            0,
            0,
            0,
            nr_slabs,
            nr_slabs,
            0
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_the_kernels() {
        let sample = include_str!("../tests/data/slabinfo-sample-1.txt");
        let raw: Vec<&str> = sample
            .lines()
            .filter(|l| {
                !l.starts_with("# SOURCE") && (l.starts_with("slabinfo") || l.starts_with("# name"))
            })
            .collect();
        assert_eq!(format!("{}\n{}\n", raw[0], raw[1]), HEADER);
    }

    #[test]
    fn line_layout_matches_a_real_line() {
        // The same format as sample 1's `nf_conntrack         878    900    320   12    1 : ...`.
        let real = include_str!("../tests/data/slabinfo-sample-1.txt")
            .lines()
            .find(|l| l.starts_with("nf_conntrack "))
            .unwrap();
        let ours = format!(
            "{:<17} {:>6} {:>6} {:>6} {:>4} {:>4} : tunables {:>4} {:>4} {:>4} : slabdata {:>6} {:>6} {:>6}",
            "nf_conntrack", 878, 900, 320, 12, 1, 0, 0, 0, 75, 75, 0
        );
        assert_eq!(ours, real);
    }
}
