//! The machine a scenario describes (`machine` and `pcp` lines), and the shapes the language
//! accepts: the machine's limits are `limits.rs`'s, and each refusal is worded as the runner's
//! machine would word it.

use crate::limits::{MAX_CPUS, MAX_NODES, MAX_PAGES_PER_NODE, PAGE_SIZES};
use serde::Serialize;
use std::fmt;

/// What `machine cpus=… nodes=… memory=… cpu_node=…` and `pcp batch=… high=…` say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MachineDecl {
    /// Number of CPUs.
    pub cpus: u32,
    /// Number of NUMA nodes.
    pub nodes: u32,
    /// The node of each CPU (`cpu_node=`); empty lets the machine spread them.
    pub cpu_node: Vec<u32>,
    /// `PAGE_SIZE` in bytes.
    pub page_size: u32,
    /// Pages of memory on each node (`pages_per_node=`, or `memory=` divided by the page size).
    pub pages_per_node: u32,
    /// `pcp batch=`: the per-CPU page lists' `batch`, where the kernel's formula is overridden.
    pub pcp_batch: Option<u32>,
    /// `pcp high=`: the per-CPU page lists' `high`, where the kernel's formula is overridden.
    pub pcp_high: Option<u32>,
}

/// Why a described machine cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MachineError {
    Cpus(u32),
    Nodes(u32),
    PageSize(u32),
    Pages(u32),
    CpuNodeLength { expected: u32, got: usize },
    CpuNode { cpu: u32, node: u32 },
    NodeWithoutCpu(u32),
}

impl fmt::Display for MachineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MachineError::Cpus(n) => write!(f, "{n} CPUs: a machine has 1 to {MAX_CPUS}"),
            MachineError::Nodes(n) => write!(f, "{n} nodes: a machine has 1 to {MAX_NODES}"),
            MachineError::PageSize(p) => {
                write!(f, "page size {p} is not modelled: use 4096, 16384 or 65536")
            }
            MachineError::Pages(p) => {
                write!(f, "{p} pages per node: use 1 to {MAX_PAGES_PER_NODE}")
            }
            MachineError::CpuNodeLength { expected, got } => write!(
                f,
                "the CPU-to-node list has {got} entries for {expected} CPUs"
            ),
            MachineError::CpuNode { cpu, node } => {
                write!(f, "cpu{cpu} is put on node {node}, which does not exist")
            }
            MachineError::NodeWithoutCpu(n) => write!(
                f,
                "node {n} has no CPU (memory-only nodes are not modelled)"
            ),
        }
    }
}

impl std::error::Error for MachineError {}

impl MachineDecl {
    /// The first thing that keeps this machine from being built, checked in the order the
    /// runner's machine checks it (so the first refusal is the same one).
    pub fn validate(&self) -> Result<(), MachineError> {
        if !(1..=MAX_CPUS).contains(&self.cpus) {
            return Err(MachineError::Cpus(self.cpus));
        }
        if !(1..=MAX_NODES).contains(&self.nodes) {
            return Err(MachineError::Nodes(self.nodes));
        }
        if !PAGE_SIZES.contains(&self.page_size) {
            return Err(MachineError::PageSize(self.page_size));
        }
        if !(1..=MAX_PAGES_PER_NODE).contains(&self.pages_per_node) {
            return Err(MachineError::Pages(self.pages_per_node));
        }
        let cpu_node: Vec<u32> = if self.cpu_node.is_empty() {
            // The spread the machine uses: consecutive runs of (nearly) equal length.
            (0..self.cpus).map(|c| c * self.nodes / self.cpus).collect()
        } else {
            if self.cpu_node.len() != self.cpus as usize {
                return Err(MachineError::CpuNodeLength {
                    expected: self.cpus,
                    got: self.cpu_node.len(),
                });
            }
            self.cpu_node.clone()
        };
        for (cpu, &node) in cpu_node.iter().enumerate() {
            if node >= self.nodes {
                return Err(MachineError::CpuNode {
                    cpu: cpu as u32,
                    node,
                });
            }
        }
        match (0..self.nodes).find(|n| !cpu_node.contains(n)) {
            Some(node) => Err(MachineError::NodeWithoutCpu(node)),
            None => Ok(()),
        }
    }
}
