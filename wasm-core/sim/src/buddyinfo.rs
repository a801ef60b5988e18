//! `/proc/buddyinfo` (`frag_show_print()` in mm/vmstat.c): per zone, `nr_free` of every order.

use crate::machine::Machine;
use std::fmt::Write;

/// The file as the kernel prints it: `Node %d, zone %8s ` then `%6lu ` per order.
pub fn buddyinfo(machine: &Machine) -> String {
    let mut out = String::new();
    for zone in &machine.zones {
        let _ = write!(out, "Node {}, zone {:>8} ", zone.node, "Normal");
        for area in &zone.free_area {
            let _ = write!(out, "{:>6} ", area.len);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::machine::MachineConfig;

    #[test]
    fn matches_the_kernel_layout_byte_for_byte() {
        // Sample 1's Normal zone line, verbatim from the real file.
        let file = include_str!("../tests/data/buddyinfo-zoneinfo-sample-1.txt");
        let line = file.lines().find(|l| l.contains("zone   Normal")).unwrap();
        let sample = format!("{line}\n");
        let mut m = Machine::new(MachineConfig {
            cpus: 1,
            nodes: 1,
            cpu_node: vec![],
            page_size: 4096,
            pages_per_node: 1,
            pcp_batch: None,
            pcp_high: None,
        })
        .unwrap();
        let counts = [356, 154, 571, 302, 143, 14, 7, 4, 3, 2, 0];
        for (area, n) in m.zones[NodeId(0)].free_area.iter_mut().zip(counts) {
            area.len = n;
        }
        assert_eq!(buddyinfo(&m), sample);
    }
}
