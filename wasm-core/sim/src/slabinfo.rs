//! `/proc/slabinfo` (`slab_show()`/`cache_show()` in mm/slab_common.c, v6.6; spec 1.6): the
//! SLUB file (`get_slabinfo()` in mm/slub.c, spec 2.11) and the one-line format both allocators
//! share. SLAB fills the same columns from its own counters (spec 3.10); without
//! `CONFIG_DEBUG_SLAB` it prints no statistics, so its header is [`HEADER`] too.

use crate::machine::Machine;

/// The header `print_slabinfo_header()` prints without statistics columns (SLUB, and SLAB
/// without `CONFIG_DEBUG_SLAB`).
pub const HEADER: &str = "slabinfo - version: 2.1\n# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n";

/// One cache's line, without its newline, as `cache_show()` formats it:
/// `"%-17s %6lu %6lu %6u %4u %4d : tunables %4u %4u %4u : slabdata %6lu %6lu %6lu"`.
// One argument per column of the kernel's single seq_printf(); a struct would only rename them.
#[allow(clippy::too_many_arguments)]
pub fn slabinfo_line(
    name: &str,
    active_objs: u64,
    num_objs: u64,
    objsize: u32,
    objperslab: u32,
    pagesperslab: u32,
    limit: u32,
    batchcount: u32,
    sharedfactor: u32,
    active_slabs: u64,
    num_slabs: u64,
    sharedavail: u64,
) -> String {
    format!(
        "{name:<17} {active_objs:>6} {num_objs:>6} {objsize:>6} {objperslab:>4} {pagesperslab:>4} \
         : tunables {limit:>4} {batchcount:>4} {sharedfactor:>4} \
         : slabdata {active_slabs:>6} {num_slabs:>6} {sharedavail:>6}"
    )
}

/// The whole file, as the machine's slab allocator prints it.
pub fn slabinfo(m: &Machine) -> String {
    crate::allocator::ops(m).slabinfo(m)
}

/// SLUB's file: live caches, newest first, aliases not listed under their own names.
pub(crate) fn slabinfo_slub(m: &Machine) -> String {
    let mut out = String::from(HEADER);
    for s in m.slub().caches.iter().rev().filter(|s| !s.destroyed) {
        let (mut nr_slabs, mut nr_objs, mut nr_free) = (0u64, 0u64, 0u64);
        for n in &s.node {
            nr_slabs += n.nr_slabs;
            nr_objs += n.total_objects;
            // count_partial(): only node-partial slabs are scanned for free objects.
            nr_free += n
                .partial
                .iter()
                .map(|p| u64::from(m.slub().slabs[p].objects - m.slub().slabs[p].inuse))
                .sum::<u64>();
        }
        out.push_str(&slabinfo_line(
            &s.name,
            // Unsigned, as in get_slabinfo(): after a free to the wrong cache a node list can
            // hold another cache's slab, whose free objects this cache never counted.
            nr_objs.wrapping_sub(nr_free),
            nr_objs,
            s.geometry.size,
            s.geometry.objs_per_slab,
            1u32 << s.geometry.order,
            0,
            0,
            0,
            nr_slabs,
            nr_slabs,
            0,
        ));
        out.push('\n');
    }
    out
}

/// `/proc/slabinfo` under SLAB (`get_slabinfo()` and `slabinfo_show_stats()` in mm/slab.c,
/// v6.6; spec 3.10): objects parked in per-CPU, shared and alien arrays count as active;
/// `sharedavail` sums the shared arrays of every node. No statistics columns (no DEBUG_SLAB).
pub fn slabinfo_slab(m: &Machine) -> String {
    let mut out = String::from(HEADER);
    for s in m.slab().caches.iter().rev().filter(|s| !s.destroyed) {
        let g = &s.geometry;
        let (mut total_slabs, mut free_slabs, mut free_objs, mut sharedavail) = (0, 0, 0, 0);
        for n in &s.node {
            total_slabs += n.total_slabs;
            free_slabs += n.free_slabs;
            free_objs += n.free_objects;
            sharedavail += n.shared.as_ref().map_or(0, |a| u64::from(a.avail()));
        }
        let num_objs = total_slabs * u64::from(g.num);
        out.push_str(&slabinfo_line(
            &s.name,
            num_objs - free_objs,
            num_objs,
            g.size,
            g.num,
            g.pages_per_slab(),
            g.limit,
            g.batchcount,
            g.shared,
            total_slabs - free_slabs,
            total_slabs,
            sharedavail,
        ));
        out.push('\n');
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
        let ours = slabinfo_line("nf_conntrack", 878, 900, 320, 12, 1, 0, 0, 0, 75, 75, 0);
        assert_eq!(ours, real);
    }

    #[test]
    fn line_layout_matches_a_real_slab_line_with_tunables() {
        // Sample 7 is a SLAB kernel: the tunables and sharedavail columns are filled.
        let real = include_str!("../tests/data/slabinfo-sample-7.txt")
            .lines()
            .find(|l| l.starts_with("kmalloc-32 "))
            .unwrap();
        let ours = slabinfo_line(
            "kmalloc-32",
            4325,
            4712,
            32,
            124,
            1,
            120,
            60,
            8,
            38,
            38,
            563,
        );
        assert_eq!(ours, real);
    }
}
